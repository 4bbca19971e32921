// CUDA kernels of conv2d, conv_transpose2d, conv2d_backward_input and
// conv2d_backward_weight through cuDNN (conv_algorithm.h), with the CPU kernels'
// (lib/cpu/conv.cpp) attrs, output sizes, preset outputs and empty cases. Operands
// are made contiguous NCHW; float32, float64, float16 and bfloat16 (other dtypes,
// which the CPU supports, raise NotImplementedError on CUDA). Biases are added by
// an own kernel after the convolution (conv_bias.h).
#include "cuda/dnn/conv_algorithm.h"
#include "cuda/dnn/conv_bias.h"
#include "cuda/launch.h"
#include "dispatch/args/linalg.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/linalg.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/factories.h"

namespace ember::cuda::dnn {

namespace {

void copy_pair(int64_t dst[2], const DimVector& src) {
  dst[0] = src[0];
  dst[1] = src[1];
}

ConvProblem problem(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r, int64_t s, int64_t oh,
                    int64_t ow, const DimVector& stride, const DimVector& pad, const DimVector& dil, int64_t groups,
                    DType dtype) {
  ConvProblem p{n, c, h, w, k, r, s, oh, ow, {}, {}, {}, groups, dtype};
  copy_pair(p.stride, stride);
  copy_pair(p.pad, pad);
  copy_pair(p.dilation, dil);
  return p;
}

// The output of a call (preset, or new and pushed), and where the kernel writes:
// the output itself when contiguous, else a contiguous temporary copied in by finish().
struct Output {
  Tensor out, dense;
  Output(OpCall& call, const DimVector& sizes, const Tensor& like) {
    if (call.has_preset_output()) {
      out = call.outputs[0];
    } else {
      out = empty(sizes, TensorOptions(like.dtype()).device(like.device()));
      call.outputs.push_back(out);
    }
    dense = out.is_contiguous() && out.dtype() == like.dtype() ? out : empty(sizes, TensorOptions(like.dtype()).device(like.device()));
  }
  void finish() {
    if (!dense.is_same(out)) out.copy_(dense);
  }
};

Tensor dense_operand(const Tensor& t) { return t.defined() ? t.contiguous() : t; }

// Runs `pass` of p writing the output; an empty reduction (no images, no channels
// per group, ...) gives zeros; then the bias, if any. `sides`: the x, w and y
// operands in conv2d's terms, the one the pass writes being out.dense.
void run(ConvPass pass, const ConvProblem& p, const Tensor& x, const Tensor& w, const Tensor& y, Output& out,
         const Tensor& bias) {
  if (out.out.numel() == 0) return;
  LaunchContext ctx(out.out);
  cudnn_data_type(p.dtype, "convolution");  // NotImplementedError for other dtypes
  if (x.numel() == 0 || w.numel() == 0 || y.numel() == 0) {
    out.dense.zero_();
  } else {
    run_convolution(pass, p, x.data_ptr(), w.data_ptr(), y.data_ptr(), ctx.stream);
  }
  if (bias.defined()) add_channel_bias(out.dense, dense_operand(bias), ctx.stream);
  out.finish();
}

// conv2d: in input [N,C,H,W], weight [C_out, C/groups, kh, kw], bias?; attrs stride,
// padding, dilation (pairs), groups.
void conv2d_kernel(OpCall& call) {
  const Tensor x = dense_operand(call.in(0)), w = dense_operand(call.in(1));
  const Tensor bias = call.inputs.size() > 2 ? call.in(2) : Tensor();
  const Conv2dArgs a = Conv2dArgs::from(call);
  const int64_t oh = (x.size(2) + 2 * a.padding[0] - a.dilation[0] * (w.size(2) - 1) - 1) / a.stride[0] + 1;
  const int64_t ow = (x.size(3) + 2 * a.padding[1] - a.dilation[1] * (w.size(3) - 1) - 1) / a.stride[1] + 1;
  Output out(call, {x.size(0), w.size(0), oh, ow}, x);
  ConvProblem p = problem(x.size(0), x.size(1), x.size(2), x.size(3), w.size(0), w.size(2), w.size(3), oh, ow,
                          a.stride, a.padding, a.dilation, a.groups, x.dtype());
  run(ConvPass::Forward, p, x, w, out.dense, out, bias);
}

// conv_transpose2d: in input [N,C_in,H,W], weight [C_in, C_out/groups, kh, kw], bias?;
// attrs stride, padding, output_padding, groups, dilation. cuDNN's backward-data pass
// of the conv2d whose input is this output.
void conv_transpose2d_kernel(OpCall& call) {
  const Tensor x = dense_operand(call.in(0)), w = dense_operand(call.in(1));
  const Tensor bias = call.inputs.size() > 2 ? call.in(2) : Tensor();
  const ConvTranspose2dArgs a = ConvTranspose2dArgs::from(call);
  const int64_t oh =
      (x.size(2) - 1) * a.stride[0] - 2 * a.padding[0] + a.dilation[0] * (w.size(2) - 1) + a.output_padding[0] + 1;
  const int64_t ow =
      (x.size(3) - 1) * a.stride[1] - 2 * a.padding[1] + a.dilation[1] * (w.size(3) - 1) + a.output_padding[1] + 1;
  const int64_t cout = w.size(1) * a.groups;
  Output out(call, {x.size(0), cout, oh, ow}, x);
  ConvProblem p = problem(x.size(0), cout, oh, ow, w.size(0), w.size(2), w.size(3), x.size(2), x.size(3), a.stride,
                          a.padding, a.dilation, a.groups, x.dtype());
  run(ConvPass::BackwardData, p, out.dense, w, x, out, bias);
}

// conv2d_backward_input: in grad_output [N,C_out,OH,OW], weight [C_out, C_in/groups,
// kh, kw]; attrs input_size [N,C_in,H,W], stride, padding, dilation, groups.
void conv2d_backward_input_kernel(OpCall& call) {
  const Tensor go = dense_operand(call.in(0)), w = dense_operand(call.in(1));
  const Conv2dBackwardInputArgs a = Conv2dBackwardInputArgs::from(call);
  Output out(call, a.input_size, go);
  ConvProblem p = problem(a.input_size[0], a.input_size[1], a.input_size[2], a.input_size[3], w.size(0), w.size(2),
                          w.size(3), go.size(2), go.size(3), a.stride, a.padding, a.dilation, a.groups, go.dtype());
  run(ConvPass::BackwardData, p, out.dense, w, go, out, Tensor());
}

// conv2d_backward_weight: in grad_output [N,C_out,OH,OW], input [N,C_in,H,W]; attrs
// weight_size [C_out, C_in/groups, kh, kw], stride, padding, dilation, groups.
void conv2d_backward_weight_kernel(OpCall& call) {
  const Tensor go = dense_operand(call.in(0)), x = dense_operand(call.in(1));
  const Conv2dBackwardWeightArgs a = Conv2dBackwardWeightArgs::from(call);
  Output out(call, a.weight_size, go);
  ConvProblem p = problem(x.size(0), x.size(1), x.size(2), x.size(3), a.weight_size[0], a.weight_size[2],
                          a.weight_size[3], go.size(2), go.size(3), a.stride, a.padding, a.dilation, a.groups,
                          go.dtype());
  run(ConvPass::BackwardFilter, p, x, out.dense, go, out, Tensor());
}

}  // namespace

EMBER_REGISTER_KERNEL(conv2d, CUDA, conv2d_kernel);
EMBER_REGISTER_KERNEL(conv_transpose2d, CUDA, conv_transpose2d_kernel);
EMBER_REGISTER_KERNEL(conv2d_backward_input, CUDA, conv2d_backward_input_kernel);
EMBER_REGISTER_KERNEL(conv2d_backward_weight, CUDA, conv2d_backward_weight_kernel);

}  // namespace ember::cuda::dnn
