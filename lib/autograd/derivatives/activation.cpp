// Derivative rows of the activations of ops/activation.h (the composites need
// none) and of their backward ops, so that create_graph=True gives second
// derivatives. Each forward gradient is one pass of its backward op.
#include "autograd/derivatives.h"
#include "dispatch/args/elementwise.h"
#include "ember/ops/activation.h"
#include "ember/ops/elementwise.h"

namespace ember::autograd {
namespace {

EMBER_DERIVATIVE(elu, save_inputs({0}), {
  auto a = EluArgs::from(ctx);
  return {elu_backward(ctx.grad(0), ctx.input(0), a.alpha, a.scale, a.input_scale)};
});
EMBER_DERIVATIVE(hardtanh, save_inputs({0}), {
  return {hardtanh_backward(ctx.grad(0), ctx.input(0), ctx.attr(0).to_scalar(), ctx.attr(1).to_scalar())};
});
EMBER_DERIVATIVE(hardsigmoid, save_inputs({0}), { return {hardsigmoid_backward(ctx.grad(0), ctx.input(0))}; });
EMBER_DERIVATIVE(hardswish, save_inputs({0}), { return {hardswish_backward(ctx.grad(0), ctx.input(0))}; });
EMBER_DERIVATIVE(mish, save_inputs({0}), { return {mish_backward(ctx.grad(0), ctx.input(0))}; });
EMBER_DERIVATIVE(logsigmoid, save_inputs({0}), { return {logsigmoid_backward(ctx.grad(0), ctx.input(0))}; });
EMBER_DERIVATIVE(softshrink, save_inputs({0}), {
  return {hardshrink_backward(ctx.grad(0), ctx.input(0), ctx.attr(0).to_scalar())};
});
EMBER_DERIVATIVE(hardshrink, save_inputs({0}), {
  return {hardshrink_backward(ctx.grad(0), ctx.input(0), ctx.attr(0).to_scalar())};
});
// torch's threshold gradient: grad where self > threshold.
EMBER_DERIVATIVE(threshold, save_inputs({0}), {
  return {threshold_backward(ctx.grad(0), ctx.input(0), ctx.attr(0).to_scalar())};
});

// The backward ops are linear in grad_output (input 0); their derivative in self
// (input 1) is grad_output times the second derivative, 0 for the piecewise-linear ones.
EMBER_DERIVATIVE(elu_backward, save_inputs({0, 1}), {
  auto [alpha, scale, input_scale] = EluBackwardArgs::from(ctx);
  Tensor gg = ctx.grad(0), g = ctx.input(0), x = ctx.input(1);
  double ic = input_scale.to_double(), negcoef = alpha.to_double() * scale.to_double();
  return {ctx.needs_grad(0) ? elu_backward(gg, x, alpha, scale, input_scale) : Tensor(),
          ctx.needs_grad(1) ? where(le(x, Scalar(0)), gg * g * exp(x * ic) * (ic * ic * negcoef), Scalar(0))
                            : Tensor()};
});
EMBER_DERIVATIVE(hardtanh_backward, save_inputs({1}), {
  return {ctx.needs_grad(0) ? hardtanh_backward(ctx.grad(0), ctx.input(1), ctx.attr(0).to_scalar(),
                                                ctx.attr(1).to_scalar())
                            : Tensor(),
          Tensor()};
});
EMBER_DERIVATIVE(hardsigmoid_backward, save_inputs({1}), {
  return {ctx.needs_grad(0) ? hardsigmoid_backward(ctx.grad(0), ctx.input(1)) : Tensor(), Tensor()};
});
EMBER_DERIVATIVE(hardshrink_backward, save_inputs({1}), {
  return {ctx.needs_grad(0) ? hardshrink_backward(ctx.grad(0), ctx.input(1), ctx.attr(0).to_scalar()) : Tensor(),
          Tensor()};
});
EMBER_DERIVATIVE(hardswish_backward, save_inputs({0, 1}), {
  Tensor gg = ctx.grad(0), g = ctx.input(0), x = ctx.input(1);
  Tensor inside = logical_and(gt(x, Scalar(-3)), lt(x, Scalar(3)));
  return {ctx.needs_grad(0) ? hardswish_backward(gg, x) : Tensor(),
          ctx.needs_grad(1) ? where(inside, gg * g / 3, Scalar(0)) : Tensor()};
});
// mish'' = (1 - t^2) s (2 + x (1 - s) - 2 x t s), t = tanh(softplus(x)), s = sigmoid(x).
EMBER_DERIVATIVE(mish_backward, save_inputs({0, 1}), {
  Tensor gg = ctx.grad(0), g = ctx.input(0), x = ctx.input(1);
  Tensor second;
  if (ctx.needs_grad(1)) {
    Tensor t = tanh(softplus(x)), s = sigmoid(x);
    second = gg * g * ((1 - t * t) * s * (2 + x * (1 - s) - x * t * s * 2));
  }
  return {ctx.needs_grad(0) ? mish_backward(gg, x) : Tensor(), second};
});
// logsigmoid'' = -s (1 - s), s = sigmoid(x).
EMBER_DERIVATIVE(logsigmoid_backward, save_inputs({0, 1}), {
  Tensor gg = ctx.grad(0), g = ctx.input(0), x = ctx.input(1);
  Tensor second;
  if (ctx.needs_grad(1)) {
    Tensor s = sigmoid(x);
    second = neg(gg * g * s * (1 - s));
  }
  return {ctx.needs_grad(0) ? logsigmoid_backward(gg, x) : Tensor(), second};
});

}  // namespace
}  // namespace ember::autograd
