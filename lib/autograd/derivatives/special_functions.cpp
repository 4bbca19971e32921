// The hand-written derivative rows of torch.special's binary functions whose
// gradient PyTorch defines for one input only: igamma and igammac (PyTorch's
// derivatives.yaml: the gradient wrt `other`, x^(a-1) e^-x / Gamma(a) up to sign, and
// a NotImplementedError for `self`) and zeta (the gradient wrt the shift q,
// -s zeta(s + 1, q); none wrt s). The error comes at backward time, where PyTorch
// raises it, and only when `self` needs a gradient.
#include "autograd/derivatives.h"
#include "ember/ember.h"
#include "ember/ops/special_functions.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::autograd {
namespace {

[[noreturn]] void no_derivative(const char* what) {
  throw NotImplementedError(detail::str("the derivative for '", what, "' is not implemented."));
}

// d/dx P(a, x) = x^(a-1) e^-x / Gamma(a) = -d/dx Q(a, x).
Tensor igamma_density(const Tensor& a, const Tensor& x) {
  return exp((a - 1) * log(x) - x - lgamma(a));
}

EMBER_DERIVATIVE(igamma, save_inputs({0, 1}), {
  if (ctx.needs_grad(0)) no_derivative("igamma: input");
  return {Tensor(), ctx.grad(0) * igamma_density(ctx.input(0), ctx.input(1))};
});

EMBER_DERIVATIVE(igammac, save_inputs({0, 1}), {
  if (ctx.needs_grad(0)) no_derivative("igammac: input");
  return {Tensor(), neg(ctx.grad(0) * igamma_density(ctx.input(0), ctx.input(1)))};
});

EMBER_DERIVATIVE(special_zeta, save_inputs({0, 1}), {
  if (ctx.needs_grad(0)) no_derivative("zeta");
  Tensor s = ctx.input(0);
  return {Tensor(), ctx.grad(0) * neg(s) * special_zeta(s + 1, ctx.input(1))};
});

}  // namespace
}  // namespace ember::autograd
