// Derivative rows of the elementwise special functions (PyTorch's formulas,
// derivatives.yaml). heaviside has no row: its backward raises, as PyTorch's.
#include "autograd/derivatives.h"
#include "autograd/derivatives/formulas.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/elementwise_special.h"
#include "ember/ops/factories.h"

namespace ember::autograd {
namespace {

constexpr double kLn2 = 0.693147180559945309417;
constexpr double kLn10 = 2.30258509299404568402;
constexpr double kPi = 3.14159265358979323846;

// ---- trigonometric and hyperbolic ------------------------------------------------------------
EMBER_DERIVATIVE(acos, save_inputs({0}), {
  Tensor x = ctx.input(0);
  return {neg(ctx.grad(0) * rsqrt(1 - x * x))};
});
EMBER_DERIVATIVE(asin, save_inputs({0}), {
  Tensor x = ctx.input(0);
  return {ctx.grad(0) * rsqrt(1 - x * x)};
});
EMBER_DERIVATIVE(atan, save_inputs({0}), {
  Tensor x = ctx.input(0);
  return {ctx.grad(0) / (x * x + 1)};
});
EMBER_DERIVATIVE(sinh, save_inputs({0}), { return {ctx.grad(0) * cosh(ctx.input(0))}; });
EMBER_DERIVATIVE(cosh, save_inputs({0}), { return {ctx.grad(0) * sinh(ctx.input(0))}; });
EMBER_DERIVATIVE(asinh, save_inputs({0}), {
  Tensor x = ctx.input(0);
  return {ctx.grad(0) * rsqrt(x * x + 1)};
});
EMBER_DERIVATIVE(acosh, save_inputs({0}), {
  Tensor x = ctx.input(0);
  return {ctx.grad(0) * rsqrt(x * x - 1)};
});
EMBER_DERIVATIVE(atanh, save_inputs({0}), {
  Tensor x = ctx.input(0);
  return {ctx.grad(0) / (1 - x * x)};
});

// ---- exponential and logarithmic ---------------------------------------------------------------
EMBER_DERIVATIVE(log10, save_inputs({0}), { return {ctx.grad(0) / (ctx.input(0) * kLn10)}; });
EMBER_DERIVATIVE_FULL(exp2, save_none(), save_inputs({0}), {
  return {ctx.grad(0) * ctx.output(0) * kLn2};
});

// ---- error and gamma functions ----------------------------------------------------------------
EMBER_DERIVATIVE(erfc, save_inputs({0}), {
  Tensor x = ctx.input(0);
  return {ctx.grad(0) * exp(neg(x * x)) * -1.1283791670955126};  // -2 / sqrt(pi)
});
EMBER_DERIVATIVE_FULL(erfinv, save_none(), save_inputs({0}), {
  Tensor y = ctx.output(0);
  return {ctx.grad(0) * exp(y * y) * 0.88622692545275801365};  // sqrt(pi) / 2
});
EMBER_DERIVATIVE(lgamma, save_inputs({0}), { return {ctx.grad(0) * digamma(ctx.input(0))}; });
EMBER_DERIVATIVE(digamma, save_inputs({0}), { return {ctx.grad(0) * polygamma(1, ctx.input(0))}; });
EMBER_DERIVATIVE(polygamma, save_inputs({0}), {
  return {ctx.grad(0) * polygamma(ctx.attr(0).to_int() + 1, ctx.input(0))};
});

// ---- Bessel, sinc, frac ------------------------------------------------------------------------
EMBER_DERIVATIVE(i0, save_inputs({0}), { return {ctx.grad(0) * special_i1(ctx.input(0))}; });
// i1' = i0 - i1 / x, 1/2 at 0.
EMBER_DERIVATIVE_FULL(special_i1, save_inputs({0}), save_inputs({0}), {
  Tensor x = ctx.input(0);
  Tensor d = where(eq(x, Scalar(0)), full_like(x, 0.5), i0(x) - ctx.output(0) / x);
  return {ctx.grad(0) * d};
});
// (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at 0.
EMBER_DERIVATIVE(sinc, save_inputs({0}), {
  Tensor x = ctx.input(0);
  Tensor px = x * kPi;
  Tensor d = (px * cos(px) - sin(px)) / (px * x);
  return {ctx.grad(0) * where(eq(x, Scalar(0)), zeros_like(d), d)};
});
EMBER_DERIVATIVE(frac, save_none(), { return {ctx.grad(0)}; });
EMBER_NON_DIFFERENTIABLE(signbit);

// ---- binary -------------------------------------------------------------------------------------
EMBER_DERIVATIVE_FULL(hypot, save_inputs({0, 1}), save_inputs({0}), {
  Tensor g = ctx.grad(0), r = ctx.output(0);
  return {ctx.needs_grad(0) ? g * ctx.input(0) / r : Tensor(),
          ctx.needs_grad(1) ? g * ctx.input(1) / r : Tensor()};
});
EMBER_DERIVATIVE(logaddexp, save_inputs({0, 1}), {
  Tensor g = ctx.grad(0), a = ctx.input(0), b = ctx.input(1);
  return {ctx.needs_grad(0) ? g / (exp(b - a) + 1) : Tensor(),
          ctx.needs_grad(1) ? g / (exp(a - b) + 1) : Tensor()};
});
EMBER_DERIVATIVE(logaddexp2, save_inputs({0, 1}), {
  Tensor g = ctx.grad(0), a = ctx.input(0), b = ctx.input(1);
  return {ctx.needs_grad(0) ? g / (exp2(b - a) + 1) : Tensor(),
          ctx.needs_grad(1) ? g / (exp2(a - b) + 1) : Tensor()};
});
// d/dself = result / self (the sign change), 0 where self is 0; other gets zeros.
EMBER_DERIVATIVE_FULL(copysign, save_inputs({0, 1}), save_inputs({0}), {
  Tensor g = ctx.grad(0), a = ctx.input(0), r = ctx.output(0);
  Tensor ratio = r / a;
  return {ctx.needs_grad(0) ? g * where(eq(a, Scalar(0)), zeros_like(ratio), ratio) : Tensor(),
          ctx.needs_grad(1) ? zeros_like(g) : Tensor()};
});
// The gradient goes to the input selected (self where other is nan), split in
// halves on ties, as PyTorch.
TensorList fextremum_backward(BackwardCtx& ctx, bool is_max) {
  Tensor g = ctx.grad(0), a = ctx.input(0), b = ctx.input(1);
  Tensor to_self = logical_or(is_max ? gt(a, b) : lt(a, b), isnan(b));
  Tensor tie = eq(a, b), half = g * 0.5;
  return {ctx.needs_grad(0) ? where(tie, half, where(to_self, g, Scalar(0))) : Tensor(),
          ctx.needs_grad(1) ? where(tie, half, where(to_self, Scalar(0), g)) : Tensor()};
}
EMBER_DERIVATIVE(fmax, save_inputs({0, 1}), { return fextremum_backward(ctx, true); });
EMBER_DERIVATIVE(fmin, save_inputs({0, 1}), { return fextremum_backward(ctx, false); });
EMBER_DERIVATIVE(xlogy, save_inputs({0, 1}), {
  Tensor g = ctx.grad(0), x = ctx.input(0), y = ctx.input(1);
  return {ctx.needs_grad(0) ? g * log(y) : Tensor(),  // also at x == 0, as PyTorch
          ctx.needs_grad(1) ? g * x / y : Tensor()};
});
EMBER_NON_DIFFERENTIABLE(gcd);
EMBER_NON_DIFFERENTIABLE(lcm);
// As PyTorch: the step is taken as constant (self's gradient passes, other's is zero).
EMBER_DERIVATIVE(nextafter, save_none(), {
  Tensor g = ctx.grad(0);
  return {ctx.needs_grad(0) ? g : Tensor(), ctx.needs_grad(1) ? zeros_like(g) : Tensor()};
});

}  // namespace
}  // namespace ember::autograd
