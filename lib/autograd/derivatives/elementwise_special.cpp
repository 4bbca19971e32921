// The hand-written derivative rows of the elementwise special functions (PyTorch's
// formulas, derivatives.yaml): those that need a helper or more than one expression.
// The one-expression formulas are in the schema rows (grad.<input> in
// lib/dispatch/schema/elementwise.toml). heaviside has no row: its backward raises,
// as PyTorch's.
#include "autograd/derivatives.h"
#include "autograd/derivatives/formulas.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/elementwise_special.h"
#include "ember/ops/factories.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::autograd {
namespace {

constexpr double kPi = 3.14159265358979323846;

// (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at 0.
EMBER_DERIVATIVE(sinc, save_inputs({0}), {
  Tensor x = ctx.input(0);
  Tensor px = x * kPi;
  Tensor d = (px * cos(px) - sin(px)) / (px * x);
  return {ctx.grad(0) * where(eq(x, Scalar(0)), zeros_like(d), d)};
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

}  // namespace
}  // namespace ember::autograd
