// The fused pointwise part of an LSTM step and its backward: argument checks, then
// one dispatched op each (kernels: lib/cpu/rnn_cell.cpp, lib/cuda/nn/rnn_cell.cu;
// the per-element formulas: lib/core/lstm_math.h). lstm and lstm_cell (rnn.cpp)
// run on it, so a step costs one matmul and one pass instead of ten ops.
#include "dispatch/dispatcher.h"
#include "ember/ops/factories.h"
#include "ember/ops/nn_backward.h"
#include "ember/ops/rnn.h"
#include "ops/nn_checks.h"

namespace ember {

using namespace nn_checks;

namespace {

// gates [B, 4H] and a state [B, H] of gates' dtype; returns H.
int64_t check_gates_and_state(const Tensor& gates, const Tensor& c, const char* op) {
  check_defined(gates, op, "gates");
  check_defined(c, op, "c");
  check_floating(gates, op, "gates");
  EMBER_CHECK(gates.dim() == 2 && gates.size(1) % 4 == 0, op, ": expected gates of shape "
              "[batch, 4 * hidden_size], got ", describe(gates));
  const int64_t H = gates.size(1) / 4;
  EMBER_CHECK(c.dim() == 2 && c.size(0) == gates.size(0) && c.size(1) == H, op, ": expected c of "
              "shape [", gates.size(0), ", ", H, "] for gates ", describe(gates), ", got ", describe(c));
  EMBER_CHECK(c.dtype() == gates.dtype(), op, ": expected c of dtype ", dtype_name(gates.dtype()),
              " (the gates'), got ", dtype_name(c.dtype()));
  return H;
}

}  // namespace

std::tuple<Tensor, Tensor> lstm_cell_fused(const Tensor& gates, const Tensor& c) {
  check_gates_and_state(gates, c, "lstm_cell_fused");
  OpCall call(OpId::lstm_cell_fused, {gates.contiguous(), c.contiguous()}, {});
  dispatch(call);
  return {call.outputs[0], call.outputs[1]};
}

std::tuple<Tensor, Tensor> lstm_cell_fused_backward(const Tensor& grad_h, const Tensor& grad_c,
                                                    const Tensor& gates, const Tensor& c,
                                                    const Tensor& c_new) {
  const char* op = "lstm_cell_fused_backward";
  check_gates_and_state(gates, c, op);
  auto state_like = [&](const Tensor& t, const char* name) {
    if (!t.defined()) return zeros_like(c);
    EMBER_CHECK(t.sizes() == c.sizes() && t.dtype() == c.dtype(), op, ": expected ", name,
                " like c (", describe(c), "), got ", describe(t));
    return t.contiguous();
  };
  check_defined(c_new, op, "c_new");
  OpCall call(OpId::lstm_cell_fused_backward,
              {state_like(grad_h, "grad_h"), state_like(grad_c, "grad_c"), gates.contiguous(),
               c.contiguous(), state_like(c_new, "c_new")},
              {});
  dispatch(call);
  return {call.outputs[0], call.outputs[1]};
}

}  // namespace ember
