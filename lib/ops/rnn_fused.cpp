// The fused pointwise parts of an LSTM and a GRU step and their backward: argument
// checks, then one dispatched op each (kernels: lib/cpu/rnn_cell.cpp,
// lib/cuda/nn/rnn_cell.cu; the per-element formulas: lib/kernels/rnn_cell_math.h). The
// recurrent layers (rnn.cpp) run on them, so a step costs its matmul and one pass
// instead of about ten ops. Also the whole-layer ops lstm_layer_inference and
// gru_layer_inference (ops/rnn_layer.h; kernels: lib/cpu/rnn_layer.cpp) that rnn.cpp
// runs when no gradient is wanted, and lstm_layer / gru_layer and their backward ops,
// the layers' differentiable forms (kernels: lib/cpu/rnn_layer.cpp, rnn_layer_backward.cpp).
#include <initializer_list>
#include <utility>
#include <vector>

#include "autocast/autocast_policy.h"
#include "dispatch/args/nn.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/factories.h"
#include "ember/ops/nn_backward.h"
#include "ember/ops/rnn.h"
#include "ops/nn_checks.h"
#include "ops/rnn_layer.h"

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
  // Inside an autocast region: as the row's policy casts them (lib/autocast).
  EMBER_CHECK(autocast::input_dtype(opid::lstm_cell_fused, c) ==
                  autocast::input_dtype(opid::lstm_cell_fused, gates), op, ": expected c of dtype ", dtype_name(gates.dtype()),
              " (the gates'), got ", dtype_name(c.dtype()));
  return H;
}

// gx and gh [B, 3H] and h [B, H], one dtype.
void check_gru_operands(const Tensor& gx, const Tensor& gh, const Tensor& h, const char* op) {
  check_defined(gx, op, "gx");
  check_defined(gh, op, "gh");
  check_defined(h, op, "h");
  check_floating(gx, op, "gx");
  EMBER_CHECK(gx.dim() == 2 && gx.size(1) % 3 == 0, op, ": expected gx of shape "
              "[batch, 3 * hidden_size], got ", describe(gx));
  // Inside an autocast region the dtypes that meet are the cast ones (lib/autocast).
  auto cast = [](const Tensor& t) { return autocast::input_dtype(opid::gru_cell_fused, t); };
  EMBER_CHECK(gh.sizes() == gx.sizes() && cast(gh) == cast(gx), op, ": expected gh like gx (",
              describe(gx), "), got ", describe(gh));
  EMBER_CHECK(h.dim() == 2 && h.size(0) == gx.size(0) && h.size(1) == gx.size(1) / 3 &&
                  cast(h) == cast(gx),
              op, ": expected h of shape [", gx.size(0), ", ", gx.size(1) / 3, "] and dtype ",
              dtype_name(gx.dtype()), ", got ", describe(h));
}

// The operands of lstm_layer_inference / gru_layer_inference: gx [T, B, G*H], w_hh
// [G*H, H], h0 [B, H] and the optional biases [G*H] (and c0 like h0), one float32 or
// float64 dtype, one device.
void check_layer_operands(const Tensor& gx, const Tensor& w_hh, const Tensor& h, int64_t G, const char* op,
                          std::initializer_list<std::pair<const Tensor*, const char*>> biases) {
  check_defined(gx, op, "gx");
  check_defined(w_hh, op, "w_hh");
  check_defined(h, op, "h0");
  EMBER_CHECK_AS(NotImplementedError, gx.dtype() == kFloat32 || gx.dtype() == kFloat64, op,
                 ": implemented for float32 and float64 only, got gx of dtype ", dtype_name(gx.dtype()));
  EMBER_CHECK(h.dim() == 2, op, ": expected h0 of shape [batch, hidden_size], got ", describe(h));
  const int64_t B = h.size(0), H = h.size(1);
  EMBER_CHECK(gx.dim() == 3 && gx.size(1) == B && gx.size(2) == G * H, op, ": expected gx of shape "
              "[steps, ", B, ", ", G * H, "] for h0 ", describe(h), ", got ", describe(gx));
  EMBER_CHECK(w_hh.dim() == 2 && w_hh.size(0) == G * H && w_hh.size(1) == H, op,
              ": expected w_hh of shape [", G * H, ", ", H, "], got ", describe(w_hh));
  for (auto [b, name] : biases)
    EMBER_CHECK(!b->defined() || (b->dim() == 1 && b->size(0) == G * H), op, ": expected ", name,
                " of shape [", G * H, "], got ", describe(*b));
  std::vector<std::pair<const Tensor*, const char*>> all{{&w_hh, "w_hh"}, {&h, "h0"}};
  all.insert(all.end(), biases.begin(), biases.end());
  for (auto [t, name] : all) {
    if (!t->defined()) continue;
    EMBER_CHECK(t->dtype() == gx.dtype() && t->device() == gx.device(), op, ": expected ", name,
                " of gx's dtype and device (", describe(gx), "), got ", describe(*t));
  }
}

Tensor contiguous_or_none(const Tensor& t) { return t.defined() ? t.contiguous() : Tensor(); }

}  // namespace

std::tuple<Tensor, Tensor, Tensor> lstm_layer_inference(const Tensor& gx, const Tensor& w_hh, const Tensor& h0,
                                                        const Tensor& c0, const Tensor& bias, bool reverse) {
  const char* op = "lstm_layer_inference";
  check_defined(c0, op, "c0");
  check_layer_operands(gx, w_hh, h0, 4, op, {{&bias, "bias"}});
  EMBER_CHECK(c0.sizes() == h0.sizes() && c0.dtype() == h0.dtype() && c0.device() == h0.device(), op,
              ": expected c0 like h0 (", describe(h0), "), got ", describe(c0));
  OpCall call(opid::lstm_layer_inference, {gx.contiguous(), w_hh.contiguous(), h0.contiguous(), c0.contiguous(),
              contiguous_or_none(bias)}, LstmLayerInferenceArgs{.reverse = reverse}.attrs());
  dispatch(call);
  return {call.outputs[0], call.outputs[1], call.outputs[2]};
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> lstm_layer(const Tensor& gx, const Tensor& w_hh, const Tensor& h0,
                                                              const Tensor& c0, const Tensor& bias, bool reverse) {
  const char* op = "lstm_layer";
  check_defined(c0, op, "c0");
  check_layer_operands(gx, w_hh, h0, 4, op, {{&bias, "bias"}});
  EMBER_CHECK(c0.sizes() == h0.sizes() && c0.dtype() == h0.dtype() && c0.device() == h0.device(), op,
              ": expected c0 like h0 (", describe(h0), "), got ", describe(c0));
  OpCall call(opid::lstm_layer, {gx.contiguous(), w_hh.contiguous(), h0.contiguous(), c0.contiguous(),
              contiguous_or_none(bias)}, LstmLayerArgs{.reverse = reverse}.attrs());
  dispatch(call);
  return {call.outputs[0], call.outputs[1], call.outputs[2], call.outputs[3], call.outputs[4]};
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> lstm_layer_backward(
    const Tensor& grad_output, const Tensor& grad_h_n, const Tensor& grad_c_n, const Tensor& w_hh, const Tensor& h0,
    const Tensor& c0, const Tensor& output, const Tensor& gates, const Tensor& cells, bool reverse) {
  const char* op = "lstm_layer_backward";
  check_defined(output, op, "output");
  check_defined(cells, op, "cells");
  check_defined(c0, op, "c0");
  // The forward's operands: gates [T, B, 4H] stands where lstm_layer's gx stood.
  check_layer_operands(gates, w_hh, h0, 4, op, {});
  auto like = [&](const Tensor& t, const Tensor& ref, const char* name) {
    if (!t.defined()) return Tensor();
    EMBER_CHECK(t.sizes() == ref.sizes() && t.dtype() == ref.dtype() && t.device() == ref.device(), op,
                ": expected ", name, " like ", describe(ref), ", got ", describe(t));
    return t.contiguous();
  };
  const DimVector seq{gates.size(0), h0.size(0), h0.size(1)};
  EMBER_CHECK(output.sizes() == seq && output.dtype() == gates.dtype() && output.device() == gates.device(), op,
              ": expected output of shape ", shape_str(seq), " like gates (", describe(gates), "), got ",
              describe(output));
  OpCall call(opid::lstm_layer_backward,
              {like(grad_output, output, "grad_output"), like(grad_h_n, h0, "grad_h_n"), like(grad_c_n, h0, "grad_c_n"),
               w_hh.contiguous(), h0.contiguous(), like(c0, h0, "c0"), output.contiguous(), gates.contiguous(),
               like(cells, output, "cells")},
              LstmLayerBackwardArgs{.reverse = reverse}.attrs());
  dispatch(call);
  return {call.outputs[0], call.outputs[1], call.outputs[2], call.outputs[3], call.outputs[4]};
}

std::tuple<Tensor, Tensor> gru_layer_inference(const Tensor& gx, const Tensor& w_hh, const Tensor& h0,
                                               const Tensor& b_ih, const Tensor& b_hh, bool reverse) {
  const char* op = "gru_layer_inference";
  check_layer_operands(gx, w_hh, h0, 3, op, {{&b_ih, "b_ih"}, {&b_hh, "b_hh"}});
  OpCall call(opid::gru_layer_inference, {gx.contiguous(), w_hh.contiguous(), h0.contiguous(),
              contiguous_or_none(b_ih), contiguous_or_none(b_hh)}, GruLayerInferenceArgs{.reverse = reverse}.attrs());
  dispatch(call);
  return {call.outputs[0], call.outputs[1]};
}

std::tuple<Tensor, Tensor, Tensor> gru_layer(const Tensor& gx, const Tensor& w_hh, const Tensor& h0,
                                             const Tensor& b_ih, const Tensor& b_hh, bool reverse) {
  const char* op = "gru_layer";
  check_layer_operands(gx, w_hh, h0, 3, op, {{&b_ih, "b_ih"}, {&b_hh, "b_hh"}});
  OpCall call(opid::gru_layer, {gx.contiguous(), w_hh.contiguous(), h0.contiguous(), contiguous_or_none(b_ih),
              contiguous_or_none(b_hh)}, GruLayerArgs{.reverse = reverse}.attrs());
  dispatch(call);
  return {call.outputs[0], call.outputs[1], call.outputs[2]};
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> gru_layer_backward(const Tensor& grad_output,
                                                                      const Tensor& grad_h_n, const Tensor& w_hh,
                                                                      const Tensor& h0, const Tensor& output,
                                                                      const Tensor& workspace, bool reverse) {
  const char* op = "gru_layer_backward";
  check_defined(output, op, "output");
  check_defined(workspace, op, "workspace");
  check_defined(h0, op, "h0");
  EMBER_CHECK(h0.dim() == 2, op, ": expected h0 of shape [batch, hidden_size], got ", describe(h0));
  EMBER_CHECK(workspace.dim() == 3 && workspace.size(2) == 4 * h0.size(1), op, ": expected workspace of shape "
              "[steps, ", h0.size(0), ", ", 4 * h0.size(1), "], got ", describe(workspace));
  // The forward's operands, the workspace's first 3H columns standing for its gx.
  check_layer_operands(workspace.narrow(2, 0, 3 * h0.size(1)), w_hh, h0, 3, op, {});
  const DimVector seq{workspace.size(0), h0.size(0), h0.size(1)};
  EMBER_CHECK(output.sizes() == seq && output.dtype() == h0.dtype() && output.device() == h0.device(), op,
              ": expected output of shape ", shape_str(seq), " like h0 (", describe(h0), "), got ", describe(output));
  auto like = [&](const Tensor& t, const Tensor& ref, const char* name) {
    if (!t.defined()) return Tensor();
    EMBER_CHECK(t.sizes() == ref.sizes() && t.dtype() == ref.dtype() && t.device() == ref.device(), op,
                ": expected ", name, " like ", describe(ref), ", got ", describe(t));
    return t.contiguous();
  };
  OpCall call(opid::gru_layer_backward,
              {like(grad_output, output, "grad_output"), like(grad_h_n, h0, "grad_h_n"), w_hh.contiguous(),
               h0.contiguous(), output.contiguous(), workspace.contiguous()},
              GruLayerBackwardArgs{.reverse = reverse}.attrs());
  dispatch(call);
  return {call.outputs[0], call.outputs[1], call.outputs[2], call.outputs[3], call.outputs[4]};
}

Tensor gru_cell_fused(const Tensor& gx, const Tensor& gh, const Tensor& h) {
  check_gru_operands(gx, gh, h, "gru_cell_fused");
  OpCall call(opid::gru_cell_fused, {gx.contiguous(), gh.contiguous(), h.contiguous()}, {});
  return dispatch_one(call);
}

std::tuple<Tensor, Tensor, Tensor> gru_cell_fused_backward(const Tensor& grad_h, const Tensor& gx,
                                                           const Tensor& gh, const Tensor& h) {
  const char* op = "gru_cell_fused_backward";
  check_gru_operands(gx, gh, h, op);
  check_defined(grad_h, op, "grad_h");
  EMBER_CHECK(grad_h.sizes() == h.sizes() && grad_h.dtype() == h.dtype(), op, ": expected grad_h "
              "like h (", describe(h), "), got ", describe(grad_h));
  OpCall call(opid::gru_cell_fused_backward,
              {grad_h.contiguous(), gx.contiguous(), gh.contiguous(), h.contiguous()}, {});
  dispatch(call);
  return {call.outputs[0], call.outputs[1], call.outputs[2]};
}

std::tuple<Tensor, Tensor> lstm_cell_fused(const Tensor& gates, const Tensor& c) {
  check_gates_and_state(gates, c, "lstm_cell_fused");
  OpCall call(opid::lstm_cell_fused, {gates.contiguous(), c.contiguous()}, {});
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
  OpCall call(opid::lstm_cell_fused_backward,
              {state_like(grad_h, "grad_h"), state_like(grad_c, "grad_c"), gates.contiguous(),
               c.contiguous(), state_like(c_new, "c_new")},
              {});
  dispatch(call);
  return {call.outputs[0], call.outputs[1]};
}

}  // namespace ember
