// Backward primitives of the 2-d pools: argument checks, then one dispatched
// op each (kernels: lib/cpu/pool_backward.cpp). Batched [N, C, ...] and
// unbatched [C, ...] shapes are passed on as they are: the kernels see planes.
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/nn_backward.h"
#include "ops/nn_checks.h"
#include "ops/pool_args.h"

namespace ember {

namespace {

// grad_output [..., OH, OW] of a pool over an input of input_size [..., H, W]
// (3 or 4 dims, the same leading dims, H and W non-empty).
DimVector check_pool_grad(const char* op, const Tensor& grad_output, const IntList& input_size) {
  nn_checks::check_defined(grad_output, op, "grad_output");
  nn_checks::check_floating(grad_output, op, "grad_output");
  DimVector in(input_size.begin(), input_size.end());
  const int64_t nd = static_cast<int64_t>(in.size());
  bool ok = (nd == 3 || nd == 4) && grad_output.dim() == nd;
  for (int64_t d = 0; ok && d < nd; ++d) ok = d < nd - 2 ? in[d] == grad_output.size(d) : in[d] > 0;
  // C may be 0 (adaptive_avg_pool2d's forward allows it, as torch's): an empty gradient.
  EMBER_CHECK(ok, op, ": expected input_size [N, C, H, W] or [C, H, W] (H, W > 0) "
              "and a grad_output with its leading dims, got input_size ", shape_str(in),
              " and grad_output ", describe(grad_output));
  return in;
}

void check_plane(const char* op, const Tensor& grad_output, int64_t oh, int64_t ow,
                 const DimVector& in) {
  EMBER_CHECK(grad_output.size(-2) == oh && grad_output.size(-1) == ow, op, ": expected grad_output "
              "planes of ", oh, "x", ow, " (the forward's output for input_size ", shape_str(in),
              "), got ", describe(grad_output));
}

}  // namespace

Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& indices, const IntList& input_size) {
  const char* op = "max_pool2d_backward";
  DimVector in = check_pool_grad(op, grad_output, input_size);
  nn_checks::check_defined(indices, op, "indices");
  EMBER_CHECK(indices.dtype() == kInt64 && indices.sizes() == grad_output.sizes(), op,
              ": expected int64 indices of grad_output's shape ", shape_str(grad_output.sizes()),
              ", got ", describe(indices));
  OpCall call(opid::max_pool2d_backward, {grad_output, indices},
              MaxPool2dBackwardArgs{.input_size = in}.attrs());
  return dispatch_one(call);
}

Tensor avg_pool2d_backward(const Tensor& grad_output, const IntList& input_size, const IntList& kernel_size,
                           const IntList& stride, const IntList& padding, bool ceil_mode,
                           bool count_include_pad, std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool2d_backward";
  DimVector in = check_pool_grad(op, grad_output, input_size);
  PoolWindow w = pool_window(op, kernel_size, stride, padding, {1});
  EMBER_CHECK(!divisor_override || *divisor_override != 0, op, ": divisor must be not zero");
  const int64_t nd = static_cast<int64_t>(in.size());
  DimVector plane = pooled_plane(op, w, in[nd - 3], in[nd - 2], in[nd - 1], ceil_mode);
  check_plane(op, grad_output, plane[0], plane[1], in);
  OpCall call(opid::avg_pool2d_backward, {grad_output},
              AvgPool2dBackwardArgs{.input_size = in,
                                    .kernel_size = w.kernel,
                                    .stride = w.stride,
                                    .padding = w.padding,
                                    .ceil_mode = ceil_mode,
                                    .count_include_pad = count_include_pad,
                                    .divisor_override = divisor_override}
                  .attrs());
  return dispatch_one(call);
}

Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, const IntList& input_size) {
  const char* op = "adaptive_avg_pool2d_backward";
  DimVector in = check_pool_grad(op, grad_output, input_size);
  OpCall call(opid::adaptive_avg_pool2d_backward, {grad_output},
              AdaptiveAvgPool2dBackwardArgs{.input_size = in}.attrs());
  return dispatch_one(call);
}

}  // namespace ember
