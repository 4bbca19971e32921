// The derivative row of clamp: which of self, min and max the result came from.
// The rules are PyTorch's (2.x), which treat number and tensor bounds differently:
// - number bounds (wrapped 0-dim tensors) have no gradient, and self gets it only
//   strictly inside the range (min < x < max): 0 at the bounds and for NaN;
// - tensor bounds are min(max(x, lo), hi): at a tie of x with a bound the gradient
//   is split in halves (as maximum/minimum); with lo > hi everything goes to hi.
#include "autograd/derivatives.h"
#include "ember/ops/elementwise.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::autograd {
namespace {

bool is_number(const Tensor& bound) { return !bound.defined() || bound.impl()->is_wrapped_number; }

Tensor clamp_numbers_backward(const Tensor& g, const Tensor& x, const Tensor& lo, const Tensor& hi) {
  Tensor inside;
  if (lo.defined()) inside = gt(x, lo);
  if (hi.defined()) inside = inside.defined() ? logical_and(inside, lt(x, hi)) : lt(x, hi);
  return where(inside, g, Scalar(0));
}

// One tensor bound b (clamp_min / clamp_max): `beyond` is where b wins (x < lo
// for min, x > hi for max); a NaN x gives g to both, as in PyTorch.
TensorList clamp_one_bound_backward(const Tensor& g, const Tensor& x, const Tensor& b,
                                    const Tensor& x_beyond, const Tensor& b_beyond) {
  Tensor shared = where(eq(x, b), g * 0.5, g);
  return {where(x_beyond, Scalar(0), shared), where(b_beyond, Scalar(0), shared)};
}

TensorList clamp_tensors_backward(const Tensor& g, const Tensor& x, const Tensor& lo, const Tensor& hi) {
  if (!hi.defined()) {
    TensorList r = clamp_one_bound_backward(g, x, lo, lt(x, lo), gt(x, lo));
    return {r[0], r[1], Tensor()};
  }
  if (!lo.defined()) {
    TensorList r = clamp_one_bound_backward(g, x, hi, gt(x, hi), lt(x, hi));
    return {r[0], Tensor(), r[1]};
  }
  Tensor half = g * 0.5;
  Tensor range_open = lt(lo, hi), range_ok = le(lo, hi);
  Tensor at_lo = logical_and(eq(x, lo), range_open), at_hi = logical_and(eq(x, hi), range_open);
  Tensor below = lt(x, lo), above = gt(x, hi);
  Tensor gx = where(logical_or(below, above), Scalar(0), where(logical_or(at_lo, at_hi), half, g));
  Tensor glo = where(logical_and(below, range_ok), g, where(at_lo, half, Scalar(0)));
  Tensor ghi = where(logical_or(logical_and(above, range_ok), gt(lo, hi)), g, where(at_hi, half, Scalar(0)));
  return {gx, glo, ghi};
}

// in: self, min, max (either bound may be left out).
EMBER_DERIVATIVE(clamp, save_inputs({0, 1, 2}), {
  Tensor g = ctx.grad(0), x = ctx.input(0), lo = ctx.input(1), hi = ctx.input(2);
  if (is_number(lo) && is_number(hi)) return {clamp_numbers_backward(g, x, lo, hi), Tensor(), Tensor()};
  TensorList r = clamp_tensors_backward(g, x, lo, hi);
  for (size_t i = 0; i < 3; ++i)
    if (!ctx.needs_grad(i)) r[i] = Tensor();
  return r;
});

}  // namespace
}  // namespace ember::autograd
