// Derivative rows of the convolutions and pools, and of their backward
// primitives (lib/ops/conv_backward.cpp, pool_backward.cpp), so that second
// derivatives work.
//
// The convolution rows close on three ops: conv2d(x, w) is bilinear, its
// gradients are conv2d_backward_input(g, w) (a transposed convolution) and
// conv2d_backward_weight(g, x), and the gradients of those are again conv2d,
// conv2d_backward_input and conv2d_backward_weight calls.
//
// The pool primitives' rows are one expression each and live in their schema
// rows (lib/dispatch/schema/nn_backward.toml, grad.grad_output: max_pool2d_backward,
// avg_pool2d_backward, adaptive_avg_pool2d_backward), generated into
// build/generated/autograd/.
#include "autograd/derivatives.h"
#include "ember/ops/linalg.h"
#include "ember/ops/nn_backward.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"
#include "dispatch/args/linalg.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/op_ids/linalg.h"
#include "dispatch/op_ids/nn_backward.h"

namespace ember::autograd {
namespace {

IntList ints(const DimVector& v) { return IntList(v.begin(), v.end()); }

// The windows of a convolution, read from the attrs of a row.
struct Conv {
  IntList stride, padding, dilation;
  int64_t groups;

  // conv2d(x, w) cut to the first windows `like` has: a convolution computed
  // for a gradient may fit more windows than the output it adjoins (after
  // conv_transpose2d's output_padding).
  Tensor conv(const Tensor& x, const Tensor& w, const DimVector& like) const {
    Tensor y = conv2d(x, w, {}, stride, padding, dilation, groups);
    for (int64_t d = 2; d < 4; ++d)
      if (y.size(d) != like[d]) y = y.narrow(d, 0, like[d]);
    return y;
  }
  Tensor backward_input(const Tensor& g, const Tensor& w, const DimVector& input_size) const {
    return conv2d_backward_input(g, w, IntList(input_size.begin(), input_size.end()), stride,
                                 padding, dilation, groups);
  }
  Tensor backward_weight(const Tensor& g, const Tensor& x, const DimVector& weight_size) const {
    return conv2d_backward_weight(g, x, IntList(weight_size.begin(), weight_size.end()), stride,
                                  padding, dilation, groups);
  }
};

Tensor bias_grad(BackwardCtx& ctx, const Tensor& g) {
  return ctx.needs_grad(2) ? sum(g, IntList{0, 2, 3}) : Tensor();
}

// conv2d: in input, weight, bias?; attrs stride, padding, dilation, groups.
EMBER_DERIVATIVE(conv2d, save_inputs({0, 1}), {
  const Conv2dArgs a = Conv2dArgs::from(ctx);
  Conv c{ints(a.stride), ints(a.padding), ints(a.dilation), a.groups};
  Tensor g = ctx.grad(0);
  return {ctx.needs_grad(0) ? c.backward_input(g, ctx.input(1), ctx.input_sizes(0)) : Tensor(),
          ctx.needs_grad(1) ? c.backward_weight(g, ctx.input(0), ctx.input_sizes(1)) : Tensor(),
          bias_grad(ctx, g)};
});

// conv_transpose2d(x, w) is conv2d_backward_input(x, w) plus bias: x is the
// window side, the output the image side. attrs stride, padding,
// output_padding, groups, dilation.
EMBER_DERIVATIVE(conv_transpose2d, save_inputs({0, 1}), {
  const ConvTranspose2dArgs a = ConvTranspose2dArgs::from(ctx);
  Conv c{ints(a.stride), ints(a.padding), ints(a.dilation), a.groups};
  Tensor g = ctx.grad(0);
  return {ctx.needs_grad(0) ? c.conv(g, ctx.input(1), ctx.input_sizes(0)) : Tensor(),
          ctx.needs_grad(1) ? c.backward_weight(ctx.input(0), g, ctx.input_sizes(1)) : Tensor(),
          bias_grad(ctx, g)};
});

// in grad_output, weight; attrs input_size, stride, padding, dilation, groups.
EMBER_DERIVATIVE(conv2d_backward_input, save_inputs({0, 1}), {
  const Conv2dBackwardInputArgs a = Conv2dBackwardInputArgs::from(ctx);
  Conv c{ints(a.stride), ints(a.padding), ints(a.dilation), a.groups};
  Tensor g = ctx.grad(0);  // input-shaped
  return {ctx.needs_grad(0) ? c.conv(g, ctx.input(1), ctx.input_sizes(0)) : Tensor(),
          ctx.needs_grad(1) ? c.backward_weight(ctx.input(0), g, ctx.input_sizes(1)) : Tensor()};
});

// in grad_output, input; attrs weight_size, stride, padding, dilation, groups.
EMBER_DERIVATIVE(conv2d_backward_weight, save_inputs({0, 1}), {
  const Conv2dBackwardWeightArgs a = Conv2dBackwardWeightArgs::from(ctx);
  Conv c{ints(a.stride), ints(a.padding), ints(a.dilation), a.groups};
  Tensor g = ctx.grad(0);  // weight-shaped
  return {ctx.needs_grad(0) ? c.conv(ctx.input(1), g, ctx.input_sizes(0)) : Tensor(),
          ctx.needs_grad(1) ? c.backward_input(ctx.input(0), g, ctx.input_sizes(1)) : Tensor()};
});

// ---- pools ----------------------------------------------------------------------------

Tensor max_pool_grad(const Tensor& grad, const Tensor& indices, const DimVector& input_size) {
  return max_pool2d_backward(grad, indices, IntList(input_size.begin(), input_size.end()));
}

EMBER_DERIVATIVE_FULL(max_pool2d_with_indices, save_none(), save_inputs({1}), {
  return {max_pool_grad(ctx.grad(0), ctx.output(1), ctx.input_sizes(0))};
});

// Reached only when max_pool2d is dispatched directly with grad on (the op
// function asks for the indices then): they are found again from the input.
EMBER_DERIVATIVE(max_pool2d, save_inputs({0}), {
  const MaxPool2dArgs a = MaxPool2dArgs::from(ctx);
  Tensor indices;
  {
    NoGradGuard no_grad;
    indices = std::get<1>(max_pool2d_with_indices(ctx.input(0), ints(a.kernel_size), ints(a.stride),
                                                  ints(a.padding), ints(a.dilation), a.ceil_mode));
  }
  return {max_pool_grad(ctx.grad(0), indices, ctx.input_sizes(0))};
});

// avg_pool2d: attrs kernel, stride, padding, ceil_mode, count_include_pad, divisor_override?.
EMBER_DERIVATIVE(avg_pool2d, save_none(), {
  const AvgPool2dArgs a = AvgPool2dArgs::from(ctx);
  const DimVector& in = ctx.input_sizes(0);
  return {avg_pool2d_backward(ctx.grad(0), IntList(in.begin(), in.end()), ints(a.kernel_size),
                              ints(a.stride), ints(a.padding), a.ceil_mode, a.count_include_pad,
                              a.divisor_override)};
});

EMBER_DERIVATIVE(adaptive_avg_pool2d, save_none(), {
  const DimVector& in = ctx.input_sizes(0);
  return {adaptive_avg_pool2d_backward(ctx.grad(0), IntList(in.begin(), in.end()))};
});

}  // namespace
}  // namespace ember::autograd
