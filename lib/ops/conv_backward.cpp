// Backward primitives of conv2d: argument checks, then one dispatched op each
// (kernels: conv2d_backward_input in lib/cpu/conv.cpp, beside the
// conv_transpose2d kernel it shares; conv2d_backward_weight in
// lib/cpu/conv_backward.cpp).
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/nn_backward.h"
#include "ops/conv_checks.h"
#include "ops/nn_checks.h"

namespace ember {

namespace {

using namespace conv_checks;

struct ConvWindows {
  DimVector stride, padding, dilation;
};

DimVector sizes_arg(const char* op, const char* name, const IntList& v) {
  DimVector sizes(v.begin(), v.end());
  EMBER_CHECK(sizes.size() == 4, op, ": expected ", name, " of 4 sizes, got ", shape_str(sizes));
  for (int64_t s : sizes) EMBER_CHECK(s >= 0, op, ": negative size in ", name, " ", shape_str(sizes));
  return sizes;
}

// The sizes of a convolution: `image` is the input side [N, C_in, H, W],
// `weight` [C_out, C_in/groups, kh, kw], grad_output [N, C_out, OH, OW] (4-D)
// whose OH x OW windows must lie inside the padded image.
ConvWindows check_conv_backward(const char* op, const Tensor& grad_output, const DimVector& image,
                                const DimVector& weight, const IntList& stride,
                                const IntList& padding, const IntList& dilation, int64_t groups) {
  EMBER_CHECK(groups > 0, op, ": non-positive groups is not supported");
  EMBER_CHECK(weight[2] > 0 && weight[3] > 0 && weight[0] % groups == 0 &&
                  image[1] == weight[1] * groups,
              op, ": weight of size ", shape_str(weight), " does not fit groups=", groups,
              " and an input of size ", shape_str(image));
  EMBER_CHECK(grad_output.size(0) == image[0] && grad_output.size(1) == weight[0], op,
              ": expected grad_output with ", image[0], " images of ", weight[0],
              " channels (input ", shape_str(image), ", weight ", shape_str(weight), "), got ",
              describe(grad_output));
  ConvWindows w{per_dim(op, "stride", stride, 2), per_dim(op, "padding", padding, 2),
                per_dim(op, "dilation", dilation, 2)};
  EMBER_CHECK(all_positive(w.stride), op, ": non-positive stride is not supported");
  EMBER_CHECK(all_non_negative(w.padding), op, ": negative padding is not supported");
  EMBER_CHECK(all_positive(w.dilation), op, ": dilation should be greater than zero, but got ",
              shape_str(w.dilation));
  for (int d = 0; d < 2; ++d) {
    int64_t windows = grad_output.size(2 + d);
    int64_t reach = (windows - 1) * w.stride[d] + w.dilation[d] * (weight[2 + d] - 1) + 1;
    EMBER_CHECK(windows == 0 || reach <= image[2 + d] + 2 * w.padding[d], op, ": grad_output ",
                describe(grad_output), " has more windows than fit in the padded input ",
                shape_str(image), " (padding ", shape_str(w.padding), ", kernel ", weight[2], "x",
                weight[3], ", stride ", shape_str(w.stride), ", dilation ", shape_str(w.dilation), ")");
  }
  return w;
}

// Checks grad_output and `operand` (the weight or the input; `image` and
// `weight` are the convolution's sizes), and returns the checked windows.
ConvWindows check_backward_args(const char* op, const Tensor& grad_output, const Tensor& operand,
                                const char* name, const DimVector& image, const DimVector& weight,
                                const IntList& stride, const IntList& padding, const IntList& dilation,
                                int64_t groups) {
  nn_checks::check_defined(grad_output, op, "grad_output");
  nn_checks::check_floating(grad_output, op, "grad_output");
  EMBER_CHECK(grad_output.dim() == 4, op, ": expected a 4-D grad_output [N, C_out, OH, OW], got ",
              describe(grad_output));
  nn_checks::check_defined(operand, op, name);
  EMBER_CHECK(operand.dtype() == grad_output.dtype(), op, ": expected grad_output and ", name,
              " to have the same dtype, but got ", dtype_name(grad_output.dtype()), " and ",
              dtype_name(operand.dtype()));
  EMBER_CHECK(operand.dim() == 4, op, ": expected a 4-D ", name, ", got ", describe(operand));
  return check_conv_backward(op, grad_output, image, weight, stride, padding, dilation, groups);
}

}  // namespace

Tensor conv2d_backward_input(const Tensor& grad_output, const Tensor& weight, const IntList& input_size,
                             const IntList& stride, const IntList& padding, const IntList& dilation,
                             int64_t groups) {
  const char* op = "conv2d_backward_input";
  DimVector image = sizes_arg(op, "input_size", input_size);
  ConvWindows w = check_backward_args(op, grad_output, weight, "weight", image,
                                      weight.defined() ? weight.sizes() : DimVector{}, stride, padding,
                                      dilation, groups);
  OpCall call(opid::conv2d_backward_input, {grad_output, weight},
              Conv2dBackwardInputArgs{.input_size = image,
                                      .stride = w.stride,
                                      .padding = w.padding,
                                      .dilation = w.dilation,
                                      .groups = groups}
                  .attrs());
  return dispatch_one(call);
}

Tensor conv2d_backward_weight(const Tensor& grad_output, const Tensor& input, const IntList& weight_size,
                              const IntList& stride, const IntList& padding, const IntList& dilation,
                              int64_t groups) {
  const char* op = "conv2d_backward_weight";
  DimVector weight = sizes_arg(op, "weight_size", weight_size);
  ConvWindows w = check_backward_args(op, grad_output, input, "input",
                                      input.defined() ? input.sizes() : DimVector{}, weight, stride,
                                      padding, dilation, groups);
  OpCall call(opid::conv2d_backward_weight, {grad_output, input},
              Conv2dBackwardWeightArgs{.weight_size = weight,
                                       .stride = w.stride,
                                       .padding = w.padding,
                                       .dilation = w.dilation,
                                       .groups = groups}
                  .attrs());
  return dispatch_one(call);
}

}  // namespace ember
