// The hand-written derivative rows of the activations' backward ops (mish_backward,
// logsigmoid_backward, gelu_backward: their second derivatives take several steps). The other
// activations and backward ops have one-expression formulas in their schema rows
// (lib/dispatch/schema/elementwise.toml): each forward gradient is one pass of its
// backward op, and each backward op is linear in grad_output (input 0), its
// derivative in self (input 1) grad_output times the second derivative, 0 for the
// piecewise-linear ones. So create_graph=True gives second derivatives.
#include "autograd/derivatives.h"
#include "ember/ops/activation.h"
#include "ember/ops/elementwise.h"
#include "dispatch/args/elementwise.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::autograd {
namespace {

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

// gelu'': the erf form's phi(x) (2 - x^2); the tanh form's (y = x s(v), v = 2k (x + c x^3))
// 2 s' v' + x (s'' v'^2 + s' v''), with s' = s (1 - s), s'' = s' (1 - 2 s).
EMBER_DERIVATIVE(gelu_backward, save_inputs({0, 1}), {
  const GeluBackwardArgs a = GeluBackwardArgs::from(ctx);
  Tensor gg = ctx.grad(0), g = ctx.input(0), x = ctx.input(1);
  Tensor second;
  if (ctx.needs_grad(1)) {
    if (a.approximate == "tanh") {
      const double k2 = 1.5957691216057308, c = 0.044715;  // 2 sqrt(2 / pi)
      const Tensor s = sigmoid((x + x * x * x * c) * k2);
      const Tensor ds = s * (1 - s);
      const Tensor dv = (x * x * (3 * c) + 1) * k2;
      second = gg * g * (ds * dv * 2 + x * (ds * (1 - s * 2) * dv * dv + ds * x * (6 * c * k2)));
    } else {
      second = gg * g * (exp(x * x * -0.5) * 0.3989422804014327 * (2 - x * x));
    }
  }
  return {ctx.needs_grad(0) ? gelu_backward(gg, x, a.approximate) : Tensor(), second};
});

}  // namespace
}  // namespace ember::autograd
