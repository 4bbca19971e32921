// Derivative rows of lstm_cell_fused and gru_cell_fused (the pointwise parts of an
// LSTM and a GRU step). A plain
// backward runs the fused backward kernel; with create_graph the same gradients are
// written with ember ops, the cell state recomputed from the inputs so that higher
// derivatives see its dependence on them (see nn_norm.cpp for why).
#include "autograd/derivatives.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/nn_backward.h"
#include "ember/ops/rnn.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"
#include "dispatch/op_ids/nn.h"

namespace ember::autograd {
namespace {

// The gradients wrt gates and c of h' = o tanh(c'), c' = f c + i g, with ember ops.
std::tuple<Tensor, Tensor> lstm_cell_grads_composite(const Tensor& grad_h, const Tensor& grad_c,
                                                     const Tensor& gates, const Tensor& c) {
  const int64_t H = c.size(1);
  const Tensor act = sigmoid(gates);
  const Tensor i = act.narrow(1, 0, H), f = act.narrow(1, H, H), o = act.narrow(1, 3 * H, H);
  const Tensor g = tanh(gates.narrow(1, 2 * H, H));
  const Tensor tc = tanh(f * c + i * g);
  const Tensor dh = grad_h.defined() ? grad_h : zeros_like(c);
  const Tensor dc = (grad_c.defined() ? grad_c : zeros_like(c)) + dh * o * (1 - tc * tc);
  const Tensor grad_gates = cat({dc * g * i * (1 - i), dc * c * f * (1 - f), dc * i * (1 - g * g),
                                 dh * tc * o * (1 - o)},
                                1);
  return {grad_gates, dc * f};
}

// in: gates [B, 4H], c [B, H]; out: h', c'.
EMBER_DERIVATIVE_FULL(lstm_cell_fused, save_inputs({0, 1}), save_inputs({1}), {
  const Tensor gates = ctx.input(0), c = ctx.input(1);
  auto [grad_gates, grad_c] =
      is_grad_enabled()
          ? lstm_cell_grads_composite(ctx.grad(0), ctx.grad(1), gates, c)
          : lstm_cell_fused_backward(ctx.grad(0), ctx.grad(1), gates, c, ctx.output(1));
  return {grad_gates, grad_c};
});

// The gradients wrt gx, gh and h of h' = n + z (h - n), with ember ops.
std::tuple<Tensor, Tensor, Tensor> gru_cell_grads_composite(const Tensor& grad, const Tensor& gx,
                                                            const Tensor& gh, const Tensor& h) {
  const int64_t H = h.size(1);
  const Tensor r = sigmoid(gx.narrow(1, 0, H) + gh.narrow(1, 0, H));
  const Tensor z = sigmoid(gx.narrow(1, H, H) + gh.narrow(1, H, H));
  const Tensor hn = gh.narrow(1, 2 * H, H);
  const Tensor n = tanh(gx.narrow(1, 2 * H, H) + r * hn);
  const Tensor dn = grad * (1 - z) * (1 - n * n);
  const Tensor dr = dn * hn * r * (1 - r), dz = grad * (h - n) * z * (1 - z);
  return {cat({dr, dz, dn}, 1), cat({dr, dz, dn * r}, 1), grad * z};
}

// in: gx [B, 3H], gh [B, 3H], h [B, H]; out: h'.
EMBER_DERIVATIVE(gru_cell_fused, save_inputs({0, 1, 2}), {
  auto [dgx, dgh, dh] = is_grad_enabled()
                            ? gru_cell_grads_composite(ctx.grad(0), ctx.input(0), ctx.input(1), ctx.input(2))
                            : gru_cell_fused_backward(ctx.grad(0), ctx.input(0), ctx.input(1), ctx.input(2));
  return {dgx, dgh, dh};
});

}  // namespace
}  // namespace ember::autograd
