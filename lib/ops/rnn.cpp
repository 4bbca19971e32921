// Recurrent layers as composites of ember ops (no kernel, no derivative row of
// their own: autograd and every device come from the ops they call).
//
// Per layer and direction, the input half of the gates, x W_ih^T + b_ih, is computed
// for all time steps by one matmul; each step then only adds h W_hh^T and applies its
// cell's gate equations. That keeps the sequential part of the work as small as it gets.
// W_hh is transposed into a contiguous [H, G*H] copy once per call, so every step's
// product reads a plain row-major operand. On the CPU (float32/float64, no trace, no
// autocast) an LSTM or GRU direction runs as one op (ops/rnn_layer.h):
// lstm_layer_inference / gru_layer_inference when no graph is recorded, else lstm_layer /
// gru_layer, whose backward is one op for the layer too.
#include "ember/ops/rnn.h"

#include <string>
#include <vector>

#include "ember/autocast.h"
#include "ember/autograd.h"
#include "ember/autograd_function.h"
#include "ember/error.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "ember/ops/nn.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"
#include "jit/tracer.h"
#include "ops/rnn_layer.h"

namespace ember {

namespace {

enum class Cell { LSTM, GRU, RNN_TANH, RNN_RELU };

int64_t gate_count(Cell cell) { return cell == Cell::LSTM ? 4 : cell == Cell::GRU ? 3 : 1; }

const char* op_name(Cell cell) {
  switch (cell) {
    case Cell::LSTM: return "lstm";
    case Cell::GRU: return "gru";
    case Cell::RNN_TANH: return "rnn_tanh";
    case Cell::RNN_RELU: return "rnn_relu";
  }
  return "rnn";
}

// The weights of one layer and direction; b_ih / b_hh undefined without biases.
struct Weights {
  Tensor w_ih, w_hh, b_ih, b_hh;
};

struct State {
  Tensor h, c;  // c: LSTM only
};

// Checks one set of weights for shapes consistent with the hidden size H (from w_hh)
// and for input's dtype, with PyTorch's messages; the caller checks w_ih's columns.
// `suffix` names the layer ("_l1_reverse") or is empty.
void check_weights(Cell cell, const char* op, const Weights& w, const Tensor& input,
                   const std::string& suffix) {
  const int64_t G = gate_count(cell);
  EMBER_CHECK(w.w_ih.defined() && w.w_hh.defined(), op, ": weight_ih", suffix, " and weight_hh",
              suffix, " must be defined");
  EMBER_CHECK(w.w_hh.dim() == 2, op, ": weight_hh", suffix, " must be 2-D [", G,
              " * hidden_size, hidden_size], got ", describe(w.w_hh));
  const int64_t H = w.w_hh.size(1);
  EMBER_CHECK(w.w_ih.dim() == 2, op, ": weight_ih", suffix, " must be 2-D [", G,
              " * hidden_size, input_size], got ", describe(w.w_ih));
  EMBER_CHECK(w.w_ih.size(0) == G * H, op, ": weight_ih", suffix, " first dim must be ", G,
              " * hidden_size = ", G * H, ", but got ", w.w_ih.size(0));
  EMBER_CHECK(w.w_hh.size(0) == G * H, op, ": weight_hh", suffix, " first dim must be ", G,
              " * hidden_size = ", G * H, ", but got ", w.w_hh.size(0));
  EMBER_CHECK(w.b_ih.defined() == w.b_hh.defined(), op, ": bias_ih", suffix, " and bias_hh", suffix,
              " must both be given or both be None");
  for (const Tensor* b : {&w.b_ih, &w.b_hh})
    if (b->defined())
      EMBER_CHECK(b->dim() == 1 && b->size(0) == G * H, op, ": ", b == &w.b_ih ? "bias_ih" : "bias_hh",
                  suffix, " must have shape [", G * H, "], got ", describe(*b));
  for (const Tensor* p : {&w.w_ih, &w.w_hh, &w.b_ih, &w.b_hh})
    if (p->defined())
      EMBER_CHECK(p->dtype() == input.dtype(), op, ": Input and parameter tensors are not the same "
                  "dtype, found input tensor with ", dtype_name(input.dtype()),
                  " and parameter tensor with ", dtype_name(p->dtype()));
}

void check_floating_input(const Tensor& input, const char* op) {
  EMBER_CHECK(input.defined(), op, ": input is an undefined tensor");
  EMBER_CHECK(input.is_floating_point(), op, ": expected a floating point input, got ", describe(input));
}

// The part of a step's gates that does not depend on h: x W_ih^T + b_ih, plus b_hh
// except for the GRU (whose b_hn is multiplied by r). x may hold all time steps.
Tensor input_gates(Cell cell, const Tensor& x, const Weights& w) {
  // Both biases folded into the matmul's (a [G*H] add, not a pass over [T, B, G*H]).
  if (cell != Cell::GRU && w.b_hh.defined()) return linear(x, w.w_ih, w.b_ih + w.b_hh);
  return linear(x, w.w_ih, w.b_ih);
}

// One time step from the step's input gates gx [B, G*H] and the state [B, H]; w_hh_t is
// W_hh^T [H, G*H] (a view of w.w_hh or a contiguous copy of it).
State step(Cell cell, const Tensor& gx, const State& s, const Weights& w, const Tensor& w_hh_t) {
  switch (cell) {
    case Cell::LSTM: {
      auto [h, c] = lstm_cell_fused(addmm(gx, s.h, w_hh_t), s.c);
      return {h, c};
    }
    case Cell::GRU: {
      Tensor gh = w.b_hh.defined() ? addmm(w.b_hh, s.h, w_hh_t) : mm(s.h, w_hh_t);
      return {gru_cell_fused(gx, gh, s.h), {}};
    }
    case Cell::RNN_TANH: return {tanh(addmm(gx, s.h, w_hh_t)), {}};
    case Cell::RNN_RELU: return {relu(addmm(gx, s.h, w_hh_t)), {}};
  }
  return s;
}

// torch.*_cell: checks (PyTorch's messages), then one step.
State cell_forward(Cell cell, const char* op, const Tensor& input, const State& s, const Weights& w) {
  check_floating_input(input, op);
  EMBER_CHECK(input.dim() == 2, op, ": Expected 2D input (batch x feature), but got ", input.dim(),
              "D input");
  check_weights(cell, op, w, input, "");
  EMBER_CHECK(input.size(1) == w.w_ih.size(1), op, ": input has inconsistent input_size: got ",
              input.size(1), " expected ", w.w_ih.size(1));
  const int64_t H = w.w_hh.size(1);
  for (int i = 0; i < (cell == Cell::LSTM ? 2 : 1); ++i) {
    const Tensor& h = i == 0 ? s.h : s.c;
    EMBER_CHECK(h.defined() && h.dim() == 2, op, ": hidden", i, " must be a 2-D [batch, hidden_size] "
                "tensor, got ", h.defined() ? describe(h) : std::string("None"));
    EMBER_CHECK(h.size(0) == input.size(0), op, ": Input batch size ", input.size(0),
                " doesn't match hidden", i, " batch size ", h.size(0));
    EMBER_CHECK(h.size(1) == H, op, ": hidden", i, " has inconsistent hidden_size: got ", h.size(1),
                ", expected ", H);
    EMBER_CHECK(h.dtype() == input.dtype(), op, ": expected hidden", i, " of dtype ",
                dtype_name(input.dtype()), " (the input's), got ", dtype_name(h.dtype()));
  }
  return step(cell, input_gates(cell, input, w), s, w, w.w_hh.t());
}

// ---- whole sequences ---------------------------------------------------------------------

struct SeqOptions {
  bool has_biases;
  int64_t num_layers;
  double dropout;
  bool train, bidirectional, batch_first;
};

std::string layer_suffix(int64_t layer, bool reverse) {
  return "_l" + std::to_string(layer) + (reverse ? "_reverse" : "");
}

// Splits params into one Weights per (layer, direction), checking their count and shapes.
std::vector<Weights> unpack_params(Cell cell, const char* op, const TensorList& params,
                                   const SeqOptions& o, const Tensor& x) {
  const int64_t D = o.bidirectional ? 2 : 1, per = o.has_biases ? 4 : 2;
  const int64_t groups = o.num_layers * D, n = static_cast<int64_t>(params.size());
  if (cell == Cell::LSTM && n == groups * (per + 1))
    throw NotImplementedError(detail::str(op, ": LSTM projections (proj_size > 0, a weight_hr per "
                                          "layer) are not supported"));
  EMBER_CHECK(n == groups * per, op, ": expected ", per, " parameters per layer and direction (w_ih, "
              "w_hh", o.has_biases ? ", b_ih, b_hh" : "", ") for ", o.num_layers, " layer(s) x ", D,
              " direction(s) = ", groups * per, " tensors, got ", n);
  std::vector<Weights> out;
  int64_t input_size = x.size(2);
  for (int64_t layer = 0; layer < o.num_layers; ++layer) {
    for (int64_t d = 0; d < D; ++d) {
      const Tensor* p = params.data() + (layer * D + d) * per;
      Weights w{p[0], p[1], o.has_biases ? p[2] : Tensor(), o.has_biases ? p[3] : Tensor()};
      const std::string suffix = layer_suffix(layer, d == 1);
      check_weights(cell, op, w, x, suffix);
      if (layer == 0)
        EMBER_CHECK(w.w_ih.size(1) == input_size, op, ": input.size(-1) must be equal to input_size. "
                    "Expected ", w.w_ih.size(1), ", got ", input_size);
      else
        EMBER_CHECK(w.w_ih.size(1) == input_size, op, ": weight_ih", suffix, " must have ", input_size,
                    " columns (the previous layer's output size), got ", describe(w.w_ih));
      if (!out.empty())
        EMBER_CHECK(w.w_hh.size(1) == out[0].w_hh.size(1), op, ": weight_hh", suffix,
                    " has hidden_size ", w.w_hh.size(1), ", weight_hh_l0 has ", out[0].w_hh.size(1));
      out.push_back(std::move(w));
    }
    input_size = D * out.back().w_hh.size(1);
  }
  return out;
}

// h0 (or c0) of a sequence call: checked against [L*D, B, H] (x is [T, B, in]), or
// zeros when undefined. `which` names it in messages ("hidden" or "hidden[0]").
Tensor initial_state(const Tensor& h0, const Tensor& x, int64_t groups, int64_t H, const char* op,
                     const char* which) {
  const IntList expected{groups, x.size(1), H};
  if (!h0.defined()) return zeros(expected, TensorOptions().dtype(x.dtype()).device(x.device()));
  EMBER_CHECK(h0.sizes() == DimVector(expected.begin(), expected.end()), op, ": Expected ", which,
              " size (", groups, ", ", x.size(1), ", ", H, "), got ", shape_str(h0.sizes()));
  EMBER_CHECK(h0.dtype() == x.dtype(), op, ": expected ", which, " of dtype ", dtype_name(x.dtype()),
              " (the input's), got ", dtype_name(h0.dtype()));
  return h0;
}

// How one direction runs: step by step through ops, or as one whole-layer op, with or
// without a graph.
enum class LayerPath { Steps, Inference, Training };

// The whole-layer ops take an LSTM or GRU, float32/float64 tensors of one dtype on the
// CPU, and nothing that needs the steps as ops: a trace (its graph and ONNX export know
// the step ops) or autocast (its casts are per op). A gradient (grad mode with an
// operand that requires grad) takes the differentiable ops, lstm_layer / gru_layer.
LayerPath layer_path(Cell cell, const Tensor& x, const Weights& w, const State& s) {
  if (cell != Cell::LSTM && cell != Cell::GRU) return LayerPath::Steps;
  if (!x.is_cpu() || (x.dtype() != kFloat32 && x.dtype() != kFloat64)) return LayerPath::Steps;
  if (jit::is_tracing() || autocast::is_enabled(DeviceType::CPU)) return LayerPath::Steps;
  const bool grad_mode = is_grad_enabled();
  bool graph = false;
  for (const Tensor* t : {&x, &w.w_ih, &w.w_hh, &w.b_ih, &w.b_hh, &s.h, &s.c}) {
    if (!t->defined()) continue;
    if (t->dtype() != x.dtype() || !t->is_cpu()) return LayerPath::Steps;
    graph = graph || (grad_mode && t->requires_grad());
  }
  return graph ? LayerPath::Training : LayerPath::Inference;
}

// Runs one direction of one layer over x [T, B, in]; s holds the initial state and
// receives the final one. Returns the hidden states of all steps, [T, B, H].
Tensor run_direction(Cell cell, const Tensor& x, const Weights& w, State& s, bool reverse) {
  const LayerPath path = layer_path(cell, x, w, s);
  if (path != LayerPath::Steps) {
    // x W_ih^T for every step by one product, without the biases: the layer op adds
    // them in its pointwise pass (here they would cost a broadcast copy of all rows).
    const Tensor gx = linear(x, w.w_ih, Tensor());
    if (cell == Cell::LSTM) {
      const Tensor bias = w.b_ih.defined() ? w.b_ih + w.b_hh : Tensor();
      if (path == LayerPath::Training) {
        auto [out, h, c, gates, cells] = lstm_layer(gx, w.w_hh, s.h, s.c, bias, reverse);
        s = {h, c};
        return out;
      }
      auto [out, h, c] = lstm_layer_inference(gx, w.w_hh, s.h, s.c, bias, reverse);
      s = {h, c};
      return out;
    }
    if (path == LayerPath::Training) {
      auto [out, h, workspace] = gru_layer(gx, w.w_hh, s.h, w.b_ih, w.b_hh, reverse);
      s = {h, {}};
      return out;
    }
    auto [out, h] = gru_layer_inference(gx, w.w_hh, s.h, w.b_ih, w.b_hh, reverse);
    s = {h, {}};
    return out;
  }
  Tensor all_gates = input_gates(cell, x, w);  // [T, B, G*H]: one matmul for every step
  // W_hh^T as a contiguous [H, G*H] copy, made once: each step's product then reads a
  // row-major operand (oneDNN's sgemm runs the untransposed form about 15% faster at
  // B = 32, H = 128); its backward transposes the gradient once, not per step.
  const Tensor w_hh_t = w.w_hh.t().contiguous();
  const TensorList gates = all_gates.unbind(0);  // one backward node for all steps (see unbind)
  const int64_t T = x.size(0);
  TensorList outputs(static_cast<size_t>(T));
  for (int64_t i = 0; i < T; ++i) {
    const int64_t t = reverse ? T - 1 - i : i;
    s = step(cell, gates[static_cast<size_t>(t)], s, w, w_hh_t);
    outputs[static_cast<size_t>(t)] = s.h;
  }
  return stack(outputs, 0);
}

struct SeqResult {
  Tensor output, h_n, c_n;
};

// The stacked, optionally bidirectional recurrence. input as the user gave it; h0 and c0
// may be undefined (zeros); c0 only for the LSTM.
SeqResult run_sequence(Cell cell, const Tensor& input, const Tensor& h0, const Tensor& c0,
                       const TensorList& params, const SeqOptions& o) {
  const char* op = op_name(cell);
  const bool lstm = cell == Cell::LSTM;
  check_floating_input(input, op);
  EMBER_CHECK_VALUE(input.dim() == 2 || input.dim() == 3, op, ": Expected input to be 2D or 3D, got ",
                    input.dim(), "D instead");
  EMBER_CHECK_VALUE(o.num_layers >= 1, op, ": num_layers must be greater than or equal to 1, got ",
                    o.num_layers);
  EMBER_CHECK_VALUE(o.dropout >= 0.0 && o.dropout <= 1.0, op, ": dropout should be a number in range "
                    "[0, 1] representing the probability of an element being zeroed, got ", o.dropout);
  const bool batched = input.dim() == 3;
  for (const Tensor* h : {&h0, &c0}) {
    if (!h->defined()) continue;
    EMBER_CHECK(h->dim() == input.dim(), op, ": For ", batched ? "batched 3-D" : "unbatched 2-D",
                " input, ", lstm ? "hx and cx" : "hx", " should also be ", input.dim(), "-D but got ",
                h->dim(), "-D tensor");
  }
  // Work in [T, B, *]; unbatched input is a batch of one.
  Tensor x = !batched ? input.unsqueeze(1) : o.batch_first ? input.transpose(0, 1) : input;
  EMBER_CHECK(x.size(0) > 0, op, ": Expected sequence length to be larger than 0 in RNN");
  const std::vector<Weights> weights = unpack_params(cell, op, params, o, x);
  const int64_t D = o.bidirectional ? 2 : 1, groups = o.num_layers * D;
  const int64_t H = weights[0].w_hh.size(1);
  auto batch_of = [&](const Tensor& h) { return h.defined() && !batched ? h.unsqueeze(1) : h; };
  Tensor h_init = initial_state(batch_of(h0), x, groups, H, op, lstm ? "hidden[0]" : "hidden");
  Tensor c_init = lstm ? initial_state(batch_of(c0), x, groups, H, op, "hidden[1]") : Tensor();

  TensorList h_n, c_n;
  Tensor layer_input = x;
  for (int64_t layer = 0; layer < o.num_layers; ++layer) {
    TensorList directions;
    for (int64_t d = 0; d < D; ++d) {
      const int64_t g = layer * D + d;
      State s{h_init.select(0, g), lstm ? c_init.select(0, g) : Tensor()};
      directions.push_back(run_direction(cell, layer_input, weights[static_cast<size_t>(g)], s, d == 1));
      h_n.push_back(s.h);
      if (lstm) c_n.push_back(s.c);
    }
    layer_input = D == 1 ? directions[0] : cat(directions, 2);
    // Dropout between layers, never after the last (PyTorch's rule).
    if (o.train && o.dropout > 0 && layer + 1 < o.num_layers)
      layer_input = ember::dropout(layer_input, o.dropout, true);
  }
  SeqResult r{layer_input, stack(h_n, 0), lstm ? stack(c_n, 0) : Tensor()};
  if (!batched) {
    r.output = r.output.squeeze(1);
    r.h_n = r.h_n.squeeze(1);
    if (lstm) r.c_n = r.c_n.squeeze(1);
  } else if (o.batch_first) {
    r.output = r.output.transpose(0, 1);
  }
  return r;
}

std::tuple<Tensor, Tensor> hidden_only(Cell cell, const Tensor& input, const Tensor& hx,
                                       const TensorList& params, const SeqOptions& o) {
  SeqResult r = run_sequence(cell, input, hx, Tensor(), params, o);
  return {r.output, r.h_n};
}

}  // namespace

std::tuple<Tensor, Tensor> lstm_cell(const Tensor& input, const TensorList& hx, const Tensor& w_ih,
                                     const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  EMBER_CHECK(hx.size() == 2, "lstm_cell: expected hx = (h, c), two tensors, got ", hx.size());
  State s = cell_forward(Cell::LSTM, "lstm_cell", input, {hx[0], hx[1]}, {w_ih, w_hh, b_ih, b_hh});
  return {s.h, s.c};
}

Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                const Tensor& b_ih, const Tensor& b_hh) {
  return cell_forward(Cell::GRU, "gru_cell", input, {hx, {}}, {w_ih, w_hh, b_ih, b_hh}).h;
}

Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const Tensor& b_ih, const Tensor& b_hh) {
  return cell_forward(Cell::RNN_TANH, "rnn_tanh_cell", input, {hx, {}}, {w_ih, w_hh, b_ih, b_hh}).h;
}

Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const Tensor& b_ih, const Tensor& b_hh) {
  return cell_forward(Cell::RNN_RELU, "rnn_relu_cell", input, {hx, {}}, {w_ih, w_hh, b_ih, b_hh}).h;
}

std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& input, const TensorList& hx,
                                        const TensorList& params, bool has_biases,
                                        int64_t num_layers, double dropout, bool train,
                                        bool bidirectional, bool batch_first) {
  EMBER_CHECK(hx.empty() || hx.size() == 2, "lstm: expected hx to be empty or (h_0, c_0), got ",
              hx.size(), " tensors");
  EMBER_CHECK(hx.empty() || hx[0].defined() == hx[1].defined(),
              "lstm: h_0 and c_0 must both be given or both be None");
  SeqResult r = run_sequence(Cell::LSTM, input, hx.empty() ? Tensor() : hx[0],
                             hx.empty() ? Tensor() : hx[1], params,
                             {has_biases, num_layers, dropout, train, bidirectional, batch_first});
  return {r.output, r.h_n, r.c_n};
}

std::tuple<Tensor, Tensor> gru(const Tensor& input, const Tensor& hx, const TensorList& params,
                               bool has_biases, int64_t num_layers, double dropout, bool train,
                               bool bidirectional, bool batch_first) {
  return hidden_only(Cell::GRU, input, hx, params,
                     {has_biases, num_layers, dropout, train, bidirectional, batch_first});
}

std::tuple<Tensor, Tensor> rnn_tanh(const Tensor& input, const Tensor& hx, const TensorList& params,
                                    bool has_biases, int64_t num_layers, double dropout, bool train,
                                    bool bidirectional, bool batch_first) {
  return hidden_only(Cell::RNN_TANH, input, hx, params,
                     {has_biases, num_layers, dropout, train, bidirectional, batch_first});
}

std::tuple<Tensor, Tensor> rnn_relu(const Tensor& input, const Tensor& hx, const TensorList& params,
                                    bool has_biases, int64_t num_layers, double dropout, bool train,
                                    bool bidirectional, bool batch_first) {
  return hidden_only(Cell::RNN_RELU, input, hx, params,
                     {has_biases, num_layers, dropout, train, bidirectional, batch_first});
}

}  // namespace ember
