// Pooling: the op functions of max_pool2d (with and without indices),
// avg_pool2d and adaptive_avg_pool2d: PyTorch's argument rules and checks,
// unbatched [C, H, W] inputs, then dispatch.
#include <algorithm>

#include "dispatch/args/linalg.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/linalg.h"
#include "ember/autograd.h"
#include "ember/ops/linalg.h"
#include "ember/ops/views.h"
#include "ops/pool_args.h"

namespace ember {

namespace {

void check_pool_input(const char* op, const Tensor& input) {
  bool ok = input.dim() == 3 || input.dim() == 4;
  for (int64_t d = input.dim() - 3; ok && d < input.dim(); ++d) ok = input.size(d) > 0;  // C, H, W
  EMBER_CHECK(ok, op, ": Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got: ",
              shape_str(input.sizes()));
  EMBER_CHECK_AS(NotImplementedError, input.dtype() != kBool, op, ": not implemented for dtype bool");
}

struct PoolArgs : PoolWindow {
  Tensor input;  // batched [N, C, H, W]
  bool batched;
};

PoolArgs pool_args(const char* op, const Tensor& input, const IntList& kernel_size,
                   const IntList& stride, const IntList& padding, const IntList& dilation,
                   bool ceil_mode) {
  check_pool_input(op, input);
  PoolArgs a;
  static_cast<PoolWindow&>(a) = pool_window(op, kernel_size, stride, padding, dilation);
  a.batched = input.dim() == 4;
  a.input = a.batched ? input : input.unsqueeze(0);
  pooled_plane(op, a, a.input.size(1), a.input.size(2), a.input.size(3), ceil_mode);
  return a;
}

Tensor unbatch(const Tensor& t, bool batched) { return batched ? t : t.squeeze(0); }

}  // namespace

Tensor max_pool2d(const Tensor& input, const IntList& kernel_size, const IntList& stride,
                  const IntList& padding, const IntList& dilation, bool ceil_mode) {
  PoolArgs a = pool_args("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode);
  // Its gradient needs the indices: computing them now costs the kernel next to
  // nothing (it tracks them anyway); the max_pool2d row would find them again.
  bool needs_indices = is_grad_enabled() && input.requires_grad();
  OpCall call = needs_indices
                    ? OpCall(opid::max_pool2d_with_indices, {a.input},
                             MaxPool2dWithIndicesArgs{.kernel_size = a.kernel,
                                                      .stride = a.stride,
                                                      .padding = a.padding,
                                                      .dilation = a.dilation,
                                                      .ceil_mode = ceil_mode}
                                 .attrs())
                    : OpCall(opid::max_pool2d, {a.input},
                             MaxPool2dArgs{.kernel_size = a.kernel,
                                           .stride = a.stride,
                                           .padding = a.padding,
                                           .dilation = a.dilation,
                                           .ceil_mode = ceil_mode}
                                 .attrs());
  dispatch(call);
  return unbatch(call.outputs[0], a.batched);
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const IntList& kernel_size,
                                                   const IntList& stride, const IntList& padding,
                                                   const IntList& dilation, bool ceil_mode) {
  PoolArgs a = pool_args("max_pool2d_with_indices", input, kernel_size, stride, padding, dilation,
                         ceil_mode);
  OpCall call(opid::max_pool2d_with_indices, {a.input},
              MaxPool2dWithIndicesArgs{.kernel_size = a.kernel,
                                       .stride = a.stride,
                                       .padding = a.padding,
                                       .dilation = a.dilation,
                                       .ceil_mode = ceil_mode}
                  .attrs());
  dispatch(call);
  return {unbatch(call.outputs[0], a.batched), unbatch(call.outputs[1], a.batched)};
}

Tensor avg_pool2d(const Tensor& input, const IntList& kernel_size, const IntList& stride,
                  const IntList& padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  // torch's avg_pool2d reads input.size(-3) first: an IndexError below 3 dims.
  EMBER_CHECK_INDEX(input.dim() >= 3, "avg_pool2d: Dimension out of range (expected to be in range of [",
                    -std::max<int64_t>(input.dim(), 1), ", ", std::max<int64_t>(input.dim(), 1) - 1,
                    "], but got -3)");
  PoolArgs a = pool_args("avg_pool2d", input, kernel_size, stride, padding, {1}, ceil_mode);
  EMBER_CHECK(!divisor_override || *divisor_override != 0, "avg_pool2d: divisor must be not zero");
  OpCall call(opid::avg_pool2d, {a.input},
              AvgPool2dArgs{.kernel_size = a.kernel,
                            .stride = a.stride,
                            .padding = a.padding,
                            .ceil_mode = ceil_mode,
                            .count_include_pad = count_include_pad,
                            .divisor_override = divisor_override}
                  .attrs());
  return unbatch(dispatch_one(call), a.batched);
}

Tensor adaptive_avg_pool2d(const Tensor& input,
                           const std::vector<std::optional<int64_t>>& output_size) {
  const char* op = "adaptive_avg_pool2d";
  EMBER_CHECK(output_size.size() == 1 || output_size.size() == 2, op, ": output_size must be 2");
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, op, ": Expected 3D or 4D tensor, but got ",
              shape_str(input.sizes()));
  for (int64_t d = input.dim() - 2; d < input.dim(); ++d)  // H, W (C may be 0, as in torch)
    EMBER_CHECK(input.size(d) > 0, op,
                ": Expected input to have non-zero size for non-batch dimensions, but input has sizes ",
                shape_str(input.sizes()), " with dimension ", d, " being empty");
  EMBER_CHECK_AS(NotImplementedError, is_floating(input.dtype()), op, ": not implemented for dtype ",
                 dtype_name(input.dtype()));
  bool batched = input.dim() == 4;
  Tensor x = batched ? input : input.unsqueeze(0);
  DimVector size(2);
  for (int d = 0; d < 2; ++d) {
    const auto& s = output_size[output_size.size() == 1 ? 0 : d];
    size[d] = s ? *s : x.size(2 + d);
    EMBER_CHECK(size[d] >= 0, op, ": elements of output_size must be greater than or equal to 0 but received ",
                s ? *s : 0);
  }
  OpCall call(opid::adaptive_avg_pool2d, {x}, AdaptiveAvgPool2dArgs{.output_size = size}.attrs());
  return unbatch(dispatch_one(call), batched);
}

Tensor adaptive_avg_pool2d(const Tensor& input, const IntList& output_size) {
  return adaptive_avg_pool2d(input, std::vector<std::optional<int64_t>>(output_size.begin(), output_size.end()));
}

}  // namespace ember
