// Derivative rows of the elementwise ops (clamp: clamp.cpp; ops without a row raise a clear
// NotImplementedError in backward until their row is written).
#include "autograd/derivatives.h"
#include "autograd/derivatives/formulas.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"

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
  return {threshold_backward(ctx.grad(0), y, Scalar(0))};
});
// Linear in grad_output; piecewise constant in self.
EMBER_DERIVATIVE(threshold_backward, save_inputs({1}), {
  return {ctx.needs_grad(0) ? threshold_backward(ctx.grad(0), ctx.input(1), ctx.attr(0).to_scalar()) : Tensor(),
          Tensor()};
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

namespace ember::autograd {
namespace {

EMBER_DERIVATIVE(expm1, save_inputs({0}), { return {ctx.grad(0) * exp(ctx.input(0))}; });
EMBER_DERIVATIVE(log1p, save_inputs({0}), { return {ctx.grad(0) / (ctx.input(0) + 1)}; });
EMBER_DERIVATIVE(log2, save_inputs({0}), {
  return {ctx.grad(0) / (ctx.input(0) * 0.6931471805599453)};
});
EMBER_DERIVATIVE_FULL(reciprocal, save_none(), save_inputs({0}), {
  Tensor y = ctx.output(0);
  return {neg(ctx.grad(0) * y * y)};
});
EMBER_DERIVATIVE_FULL(rsqrt, save_none(), save_inputs({0}), {
  Tensor y = ctx.output(0);
  return {ctx.grad(0) * y * y * y * -0.5};
});
EMBER_DERIVATIVE_FULL(tan, save_none(), save_inputs({0}), {
  Tensor y = ctx.output(0);
  return {ctx.grad(0) * (y * y + 1)};
});
EMBER_DERIVATIVE(erf, save_inputs({0}), {
  Tensor x = ctx.input(0);
  return {ctx.grad(0) * exp(neg(x * x)) * 1.1283791670955126};  // 2 / sqrt(pi)
});
EMBER_DERIVATIVE(silu, save_inputs({0}), {
  Tensor s = sigmoid(ctx.input(0));
  return {ctx.grad(0) * s * (1 + ctx.input(0) * (1 - s))};
});
EMBER_DERIVATIVE(pow, save_inputs({0, 1}), {
  Tensor g = ctx.grad(0), a = ctx.input(0), b = ctx.input(1);
  return {ctx.needs_grad(0) ? g * b * pow(a, b - 1) : Tensor(),
          ctx.needs_grad(1) ? g * pow(a, b) * log(a) : Tensor()};
});
EMBER_DERIVATIVE(maximum, save_inputs({0, 1}), {
  Tensor g = ctx.grad(0), a = ctx.input(0), b = ctx.input(1);
  Tensor half = g * 0.5;  // ties share the gradient, as in PyTorch
  return {where(gt(a, b), g, where(eq(a, b), half, Scalar(0))),
          where(lt(a, b), g, where(eq(a, b), half, Scalar(0)))};
});
EMBER_DERIVATIVE(minimum, save_inputs({0, 1}), {
  Tensor g = ctx.grad(0), a = ctx.input(0), b = ctx.input(1);
  Tensor half = g * 0.5;
  return {where(lt(a, b), g, where(eq(a, b), half, Scalar(0))),
          where(gt(a, b), g, where(eq(a, b), half, Scalar(0)))};
});
EMBER_DERIVATIVE(where, save_inputs({0}), {
  Tensor c = ctx.input(0), g = ctx.grad(0);
  return {Tensor(), where(c, g, Scalar(0)), where(c, Scalar(0), g)};
});

}  // namespace
}  // namespace ember::autograd

// ---- the remaining activations, binary ops and nan_to_num -----------------------------------

namespace ember::autograd {
namespace {

EMBER_DERIVATIVE(gelu, save_inputs({0}), {
  Tensor x = ctx.input(0), g = ctx.grad(0);
  if (ctx.attr(0).to_string() == "tanh") {
    // y = x/2 (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3)
    const double k = 0.7978845608028654, c = 0.044715;
    Tensor t = tanh((x + x * x * x * c) * k);
    return {g * ((t + 1) * 0.5 + x * (1 - t * t) * (x * x * (3 * c) + 1) * (0.5 * k))};
  }
  // y = x Phi(x): y' = Phi(x) + x phi(x)
  Tensor cdf = (erf(x * 0.7071067811865476) + 1) * 0.5;
  Tensor pdf = exp(x * x * -0.5) * 0.3989422804014327;  // 1 / sqrt(2 pi)
  return {g * (cdf + x * pdf)};
});
EMBER_DERIVATIVE(softplus, save_inputs({0}), {
  double beta = ctx.attr(0).to_double(), threshold = ctx.attr(1).to_double();
  Tensor bx = ctx.input(0) * beta, g = ctx.grad(0);
  // Above the threshold the forward returns x itself.
  return {where(gt(bx, Scalar(threshold)), g, g * sigmoid(bx))};
});
EMBER_DERIVATIVE(leaky_relu, save_inputs({0}), {
  Tensor g = ctx.grad(0);
  return {where(gt(ctx.input(0), Scalar(0)), g, g * ctx.attr(0).to_scalar())};
});

EMBER_DERIVATIVE(atan2, save_inputs({0, 1}), {
  Tensor a = ctx.input(0), b = ctx.input(1), g = ctx.grad(0);
  // Over a^2 + b^2, taken as 0 at the origin as PyTorch does.
  Tensor denom = a * a + b * b;
  return {ctx.needs_grad(0) ? div_or_zero(g * b, denom) : Tensor(),
          ctx.needs_grad(1) ? div_or_zero(neg(g * a), denom) : Tensor()};
});

// remainder / fmod: self - other * q with a piecewise-constant quotient q (rounded
// toward -inf or toward zero). q has no gradient, so it is computed from detached
// values (div with a rounding mode has no derivative row of its own).
TensorList rounded_remainder_backward(BackwardCtx& ctx, const char* rounding_mode) {
  Tensor g = ctx.grad(0);
  if (!ctx.needs_grad(1)) return {g, Tensor()};
  Tensor q = div(detach(ctx.input(0)), detach(ctx.input(1)), std::string(rounding_mode));
  return {ctx.needs_grad(0) ? g : Tensor(), neg(g * q)};
}
EMBER_DERIVATIVE(remainder, save_inputs({0, 1}), { return rounded_remainder_backward(ctx, "floor"); });
EMBER_DERIVATIVE(fmod, save_inputs({0, 1}), { return rounded_remainder_backward(ctx, "trunc"); });

// self + weight (end - self); a number weight arrives as a wrapped 0-dim tensor.
EMBER_DERIVATIVE(lerp, save_inputs({0, 1, 2}), {
  Tensor a = ctx.input(0), b = ctx.input(1), w = ctx.input(2), g = ctx.grad(0);
  return {ctx.needs_grad(0) ? g * (1 - w) : Tensor(), ctx.needs_grad(1) ? g * w : Tensor(),
          ctx.needs_grad(2) ? g * (b - a) : Tensor()};
});

// Replaced values (nan, +-inf) do not depend on the input.
EMBER_DERIVATIVE(nan_to_num, save_inputs({0}), { return {ctx.grad(0) * isfinite(ctx.input(0))}; });

}  // namespace
}  // namespace ember::autograd
