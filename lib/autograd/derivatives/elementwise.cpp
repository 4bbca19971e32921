// The hand-written derivative rows of the elementwise ops: those whose formula needs
// more than one expression per input (a check, a branch on an attr, a shared helper).
// The one-expression formulas are in the schema rows themselves (grad.<input> in
// lib/dispatch/schema/elementwise.toml), generated into
// build/generated/autograd/derivatives_elementwise.cpp. clamp: clamp.cpp.
#include "autograd/derivatives.h"
#include "autograd/derivatives/formulas.h"
#include "ember/ops/activation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"
#include "dispatch/args/elementwise.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::autograd {
namespace {

EMBER_DERIVATIVE(div, save_inputs({0, 1}), {
  const DivArgs a = DivArgs::from(ctx);
  Tensor g = ctx.grad(0), b = ctx.input(1);
  // A rounded quotient is piecewise constant: zero gradients, as torch's.
  if (a.rounding_mode)
    return {ctx.needs_grad(0) ? zeros_like(g) : Tensor(), ctx.needs_grad(1) ? zeros_like(g) : Tensor()};
  return {ctx.needs_grad(0) ? g / b : Tensor(),
          ctx.needs_grad(1) ? neg(g * ctx.input(0) / (b * b)) : Tensor()};
});

// ---- activations with a branch on their attrs --------------------------------------------------

EMBER_DERIVATIVE(gelu, save_inputs({0}), {
  const GeluArgs a = GeluArgs::from(ctx);
  Tensor x = ctx.input(0), g = ctx.grad(0);
  // On the CPU one pass (gelu_backward, whose row gives the second derivatives).
  if (x.is_cpu()) return {gelu_backward(g, x, a.approximate)};
  if (a.approximate == "tanh") {
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
  const SoftplusArgs a = SoftplusArgs::from(ctx);
  double beta = a.beta.to_double(), threshold = a.threshold.to_double();
  Tensor bx = ctx.input(0) * beta, g = ctx.grad(0);
  // Above the threshold the forward returns x itself.
  return {where(gt(bx, Scalar(threshold)), g, g * sigmoid(bx))};
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

}  // namespace
}  // namespace ember::autograd
