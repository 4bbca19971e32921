// Derivative rows of lstm_cell_fused and gru_cell_fused (the pointwise parts of an
// LSTM and a GRU step) and of lstm_layer and gru_layer (a whole layer's direction). A plain
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
#include "dispatch/args/nn.h"
#include "dispatch/op_ids/nn.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduce.h"
#include "ops/rnn_layer.h"

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

// lstm_layer's gradients with ember ops (for create_graph): the forward recomputed step
// by step from the inputs (so every saved value depends on them), then the steps
// backwards through lstm_cell_grads_composite, as lstm_layer_backward computes them.
TensorList lstm_layer_grads_composite(const BackwardCtx& ctx, bool reverse) {
  const Tensor gx = ctx.input(0), w_hh = ctx.input(1), h0 = ctx.input(2), c0 = ctx.input(3), bias = ctx.input(4);
  const int64_t steps = gx.size(0);
  const Tensor w_t = w_hh.t();
  std::vector<Tensor> pre(static_cast<size_t>(steps)), h_prev(pre.size()), c_prev(pre.size());
  Tensor h = h0, c = c0;
  for (int64_t i = 0; i < steps; ++i) {
    const auto t = static_cast<size_t>(reverse ? steps - 1 - i : i);
    Tensor gates = addmm(gx.select(0, static_cast<int64_t>(t)), h, w_t);
    if (bias.defined()) gates = gates + bias;
    pre[t] = gates;
    h_prev[t] = h;
    c_prev[t] = c;
    std::tie(h, c) = lstm_cell_fused(gates, c);
  }
  Tensor dh = ctx.has_grad(1) ? ctx.grad(1) : zeros_like(h0);
  Tensor dc = ctx.has_grad(2) ? ctx.grad(2) : zeros_like(c0);
  Tensor dw = zeros_like(w_hh);
  TensorList dgx(pre.size());
  for (int64_t i = 0; i < steps; ++i) {
    const auto t = static_cast<size_t>(reverse ? i : steps - 1 - i);
    if (ctx.has_grad(0)) dh = dh + ctx.grad(0).select(0, static_cast<int64_t>(t));
    auto [dgates, dc_prev] = lstm_cell_grads_composite(dh, dc, pre[t], c_prev[t]);
    dgx[t] = dgates;
    dw = dw + mm(dgates.t(), h_prev[t]);
    dh = mm(dgates, w_hh);
    dc = dc_prev;
  }
  const Tensor grad_gx = steps > 0 ? stack(dgx, 0) : zeros_like(gx);
  return {grad_gx, dw, dh, dc, bias.defined() ? sum(grad_gx, IntList{0, 1}) : Tensor()};
}

// in: gx [T, B, 4H], w_hh, h0, c0, bias?; out: output, h_n, c_n, gates, cells (the last
// two are the backward's workspace: their gradients are never read).
EMBER_DERIVATIVE_FULL(lstm_layer, save_inputs({0, 1, 2, 3, 4}), save_inputs({0, 3, 4}), {
  const bool reverse = LstmLayerArgs::from(ctx).reverse;
  if (is_grad_enabled()) return lstm_layer_grads_composite(ctx, reverse);
  auto grad_or_none = [&](size_t i) { return ctx.has_grad(i) ? ctx.grad(i) : Tensor(); };
  auto [dgx, dw, dh0, dc0, dbias] =
      lstm_layer_backward(grad_or_none(0), grad_or_none(1), grad_or_none(2), ctx.input(1), ctx.input(2),
                          ctx.input(3), ctx.output(0), ctx.output(3), ctx.output(4), reverse);
  return {dgx, dw, dh0, dc0, ctx.input_defined(4) ? dbias : Tensor()};
});

// gru_layer's gradients with ember ops (for create_graph), as the LSTM's above: the
// steps recomputed from the inputs, then run backwards through gru_cell_grads_composite.
TensorList gru_layer_grads_composite(const BackwardCtx& ctx, bool reverse) {
  const Tensor gx = ctx.input(0), w_hh = ctx.input(1), h0 = ctx.input(2), b_ih = ctx.input(3),
               b_hh = ctx.input(4);
  const int64_t steps = gx.size(0);
  const Tensor w_t = w_hh.t();
  std::vector<Tensor> xs(static_cast<size_t>(steps)), hs(xs.size()), h_prev(xs.size());
  Tensor h = h0;
  for (int64_t i = 0; i < steps; ++i) {
    const auto t = static_cast<size_t>(reverse ? steps - 1 - i : i);
    const Tensor x = gx.select(0, static_cast<int64_t>(t));
    xs[t] = b_ih.defined() ? x + b_ih : x;
    hs[t] = b_hh.defined() ? addmm(b_hh, h, w_t) : mm(h, w_t);
    h_prev[t] = h;
    h = gru_cell_fused(xs[t], hs[t], h);
  }
  Tensor dh = ctx.has_grad(1) ? ctx.grad(1) : zeros_like(h0);
  Tensor dw = zeros_like(w_hh);
  TensorList dgx(xs.size()), dgh(xs.size());
  for (int64_t i = 0; i < steps; ++i) {
    const auto t = static_cast<size_t>(reverse ? i : steps - 1 - i);
    if (ctx.has_grad(0)) dh = dh + ctx.grad(0).select(0, static_cast<int64_t>(t));
    auto [dx, dy, dh_direct] = gru_cell_grads_composite(dh, xs[t], hs[t], h_prev[t]);
    dgx[t] = dx;
    dgh[t] = dy;
    dw = dw + mm(dy.t(), h_prev[t]);
    dh = dh_direct + mm(dy, w_hh);
  }
  const Tensor grad_gx = steps > 0 ? stack(dgx, 0) : zeros_like(gx);
  const Tensor grad_gh = steps > 0 ? stack(dgh, 0) : zeros_like(gx);
  return {grad_gx, dw, dh, b_ih.defined() ? sum(grad_gx, IntList{0, 1}) : Tensor(),
          b_hh.defined() ? sum(grad_gh, IntList{0, 1}) : Tensor()};
}

// in: gx [T, B, 3H], w_hh, h0, b_ih?, b_hh?; out: output, h_n, workspace (never read
// for a gradient).
EMBER_DERIVATIVE_FULL(gru_layer, save_inputs({0, 1, 2, 3, 4}), save_inputs({0, 2}), {
  const bool reverse = GruLayerArgs::from(ctx).reverse;
  if (is_grad_enabled()) return gru_layer_grads_composite(ctx, reverse);
  auto grad_or_none = [&](size_t i) { return ctx.has_grad(i) ? ctx.grad(i) : Tensor(); };
  auto [dgx, dw, dh0, db_ih, db_hh] = gru_layer_backward(grad_or_none(0), grad_or_none(1), ctx.input(1),
                                                         ctx.input(2), ctx.output(0), ctx.output(2), reverse);
  return {dgx, dw, dh0, ctx.input_defined(3) ? db_ih : Tensor(), ctx.input_defined(4) ? db_hh : Tensor()};
});

}  // namespace
}  // namespace ember::autograd
