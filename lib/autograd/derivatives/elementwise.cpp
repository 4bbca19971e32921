// Derivative rows of the elementwise ops (the first set; the rest raise a clear
// NotImplementedError in backward until their row is written).
#include "autograd/derivatives.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"

namespace ember::autograd {
namespace {

EMBER_DERIVATIVE(neg, save_none(), { return {neg(ctx.grad(0))}; });
EMBER_DERIVATIVE(abs, save_inputs({0}), { return {ctx.grad(0) * sign(ctx.input(0))}; });
EMBER_DERIVATIVE_FULL(exp, save_none(), save_inputs({0}), { return {ctx.grad(0) * ctx.output(0)}; });
EMBER_DERIVATIVE(log, save_inputs({0}), { return {ctx.grad(0) / ctx.input(0)}; });
EMBER_DERIVATIVE_FULL(sqrt, save_none(), save_inputs({0}), { return {ctx.grad(0) / (ctx.output(0) * 2)}; });
EMBER_DERIVATIVE(sin, save_inputs({0}), { return {ctx.grad(0) * cos(ctx.input(0))}; });
EMBER_DERIVATIVE(cos, save_inputs({0}), { return {neg(ctx.grad(0) * sin(ctx.input(0)))}; });
EMBER_DERIVATIVE_FULL(tanh, save_none(), save_inputs({0}), {
  Tensor y = ctx.output(0);
  return {ctx.grad(0) * (1 - y * y)};
});
EMBER_DERIVATIVE_FULL(sigmoid, save_none(), save_inputs({0}), {
  Tensor y = ctx.output(0);
  return {ctx.grad(0) * y * (1 - y)};
});
EMBER_DERIVATIVE_FULL(relu, save_none(), save_inputs({0}), {
  Tensor y = ctx.output(0);
  return {where(gt(y, Scalar(0)), ctx.grad(0), Scalar(0))};
});

EMBER_DERIVATIVE(add, save_none(), {
  Scalar alpha = ctx.attr(0).to_scalar();
  return {ctx.grad(0), ctx.needs_grad(1) ? ctx.grad(0) * alpha : Tensor()};
});
EMBER_DERIVATIVE(sub, save_none(), {
  Scalar alpha = ctx.attr(0).to_scalar();
  return {ctx.grad(0), ctx.needs_grad(1) ? ctx.grad(0) * -alpha.to_double() : Tensor()};
});
EMBER_DERIVATIVE(mul, save_inputs({0, 1}), {
  Tensor g = ctx.grad(0);
  return {ctx.needs_grad(0) ? g * ctx.input(1) : Tensor(),
          ctx.needs_grad(1) ? g * ctx.input(0) : Tensor()};
});
EMBER_DERIVATIVE(div, save_inputs({0, 1}), {
  EMBER_CHECK(ctx.attr(0).is_none(), "the derivative of div with a rounding_mode is zero almost "
              "everywhere and is not implemented");
  Tensor g = ctx.grad(0), b = ctx.input(1);
  return {ctx.needs_grad(0) ? g / b : Tensor(),
          ctx.needs_grad(1) ? neg(g * ctx.input(0) / (b * b)) : Tensor()};
});

// Piecewise-constant or boolean results: no gradient.
EMBER_DERIVATIVE(sign, save_none(), { return {Tensor()}; });
EMBER_DERIVATIVE(floor, save_none(), { return {Tensor()}; });
EMBER_DERIVATIVE(ceil, save_none(), { return {Tensor()}; });
EMBER_DERIVATIVE(trunc, save_none(), { return {Tensor()}; });
EMBER_DERIVATIVE(round, save_none(), { return {Tensor()}; });
EMBER_NON_DIFFERENTIABLE(isnan);
EMBER_NON_DIFFERENTIABLE(isinf);
EMBER_NON_DIFFERENTIABLE(isfinite);
EMBER_NON_DIFFERENTIABLE(logical_not);
EMBER_NON_DIFFERENTIABLE(bitwise_not);
EMBER_NON_DIFFERENTIABLE(eq);
EMBER_NON_DIFFERENTIABLE(ne);
EMBER_NON_DIFFERENTIABLE(lt);
EMBER_NON_DIFFERENTIABLE(le);
EMBER_NON_DIFFERENTIABLE(gt);
EMBER_NON_DIFFERENTIABLE(ge);
EMBER_NON_DIFFERENTIABLE(logical_and);
EMBER_NON_DIFFERENTIABLE(logical_or);
EMBER_NON_DIFFERENTIABLE(logical_xor);
EMBER_NON_DIFFERENTIABLE(bitwise_and);
EMBER_NON_DIFFERENTIABLE(bitwise_or);
EMBER_NON_DIFFERENTIABLE(bitwise_xor);
EMBER_NON_DIFFERENTIABLE(bitwise_left_shift);
EMBER_NON_DIFFERENTIABLE(bitwise_right_shift);

}  // namespace
}  // namespace ember::autograd
