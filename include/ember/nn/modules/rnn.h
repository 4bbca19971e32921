// RNN, LSTM and GRU (torch::nn's names, options, parameters and initialization):
// the modules hold the parameters; the recurrences are ember::lstm / gru / rnn_tanh /
// rnn_relu (ember/ops/rnn.h).
#pragma once
#include <string>
#include <tuple>
#include <vector>

#include "ember/arg.h"
#include "ember/nn/module.h"

namespace ember::nn {

namespace detail {

// The options RNN, LSTM and GRU share; Derived is the options struct, so setters chain.
template <typename Derived>
struct RNNOptionsBase {
  RNNOptionsBase(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(bool, bias) = true;
  // input and output [B, T, F] instead of [T, B, F] (the hidden states stay [L*D, B, H]).
  EMBER_ARG(bool, batch_first) = false;
  // Dropout on the output of every layer but the last, in training.
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;

 protected:
  Derived& derived() { return static_cast<Derived&>(*this); }
};

// The settings of RNNImplBase, whatever options struct they came from.
struct RNNSettings {
  std::string mode;  // "LSTM", "GRU", "RNN_TANH" or "RNN_RELU"
  int64_t input_size, hidden_size, num_layers;
  bool bias, batch_first;
  double dropout;
  bool bidirectional;
};

// Parameters, checks and printing shared by RNN, LSTM and GRU. Per layer k and
// direction: weight_ih_l{k} [G*H, in], weight_hh_l{k} [G*H, H] and, with bias,
// bias_ih_l{k}, bias_hh_l{k} [G*H]; the reverse direction adds "_reverse".
class RNNImplBase : public Module {
 public:
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // The parameters in the order ember::lstm takes them (Python's _flat_weights).
  const std::vector<Tensor>& flat_weights() const { return flat_weights_; }

 protected:
  explicit RNNImplBase(RNNSettings settings);
  // Checks input (2-D or 3-D, input_size features) and the given states against the
  // expected hidden size; returns whether the input is batched.
  bool check_forward_args(const Tensor& input, const TensorList& states) const;

  RNNSettings settings_;
  std::vector<Tensor> flat_weights_;
};

template <typename Options>
RNNSettings settings_of(const std::string& mode, const Options& o) {
  return {mode, o.input_size(), o.hidden_size(), o.num_layers(), o.bias(), o.batch_first(),
          o.dropout(), o.bidirectional()};
}

}  // namespace detail

struct LSTMOptions : detail::RNNOptionsBase<LSTMOptions> {
  using RNNOptionsBase::RNNOptionsBase;
};

// Gates i, f, g, o: c' = f * c + i * g, h' = o * tanh(c').
class LSTMImpl : public detail::RNNImplBase {
 public:
  LSTMImpl(int64_t input_size, int64_t hidden_size) : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  explicit LSTMImpl(const LSTMOptions& options);
  // input [T, B, in] ([B, T, in] batch_first, or unbatched [T, in]); hx = (h_0, c_0),
  // each [L*D, B, H], zeros when undefined. Returns (output, (h_n, c_n)).
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(const Tensor& input,
                                                         std::tuple<Tensor, Tensor> hx = {});

  LSTMOptions options;
};
EMBER_MODULE(LSTM);

struct GRUOptions : detail::RNNOptionsBase<GRUOptions> {
  using RNNOptionsBase::RNNOptionsBase;
};

// Gates r, z, n: n = tanh(W_in x + b_in + r * (W_hn h + b_hn)), h' = (1 - z) * n + z * h.
class GRUImpl : public detail::RNNImplBase {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size) : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions& options);
  // Returns (output, h_n); hx [L*D, B, H], zeros when undefined.
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = {});

  GRUOptions options;
};
EMBER_MODULE(GRU);

struct RNNOptions : detail::RNNOptionsBase<RNNOptions> {
  using RNNOptionsBase::RNNOptionsBase;
  // "tanh" or "relu".
  EMBER_ARG(std::string, nonlinearity) = "tanh";
};

// h' = act(W_ih x + b_ih + W_hh h + b_hh), act tanh or relu.
class RNNImpl : public detail::RNNImplBase {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size) : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  explicit RNNImpl(const RNNOptions& options);
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = {});

  RNNOptions options;
};
EMBER_MODULE(RNN);

// ---- one-step cells --------------------------------------------------------------------------

namespace detail {

template <typename Derived>
struct RNNCellOptionsBase {
  RNNCellOptionsBase(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;

 protected:
  Derived& derived() { return static_cast<Derived&>(*this); }
};

// weight_ih [G*H, in], weight_hh [G*H, H], bias_ih and bias_hh [G*H] (undefined without
// bias), uniform in +-1/sqrt(H) as the sequence layers.
class RNNCellImplBase : public Module {
 public:
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  Tensor weight_ih, weight_hh, bias_ih, bias_hh;

 protected:
  RNNCellImplBase(std::string name, int64_t input_size, int64_t hidden_size, bool bias, int64_t gates,
                  std::string nonlinearity = "tanh");
  // Checks the dims; input and states become [B, ...] (undefined states: zeros).
  // Returns whether the input was batched.
  bool batched(Tensor& input, TensorList& states) const;

  std::string name_, nonlinearity_;
  int64_t input_size_, hidden_size_;
  bool bias_;
};

}  // namespace detail

struct LSTMCellOptions : detail::RNNCellOptionsBase<LSTMCellOptions> {
  using RNNCellOptionsBase::RNNCellOptionsBase;
};

class LSTMCellImpl : public detail::RNNCellImplBase {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size)
      : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  explicit LSTMCellImpl(const LSTMCellOptions& options);
  // input [B, in] or [in]; hx = (h, c), zeros when undefined. Returns (h', c').
  std::tuple<Tensor, Tensor> forward(const Tensor& input, std::tuple<Tensor, Tensor> hx = {});

  LSTMCellOptions options;
};
EMBER_MODULE(LSTMCell);

struct GRUCellOptions : detail::RNNCellOptionsBase<GRUCellOptions> {
  using RNNCellOptionsBase::RNNCellOptionsBase;
};

class GRUCellImpl : public detail::RNNCellImplBase {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size) : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  explicit GRUCellImpl(const GRUCellOptions& options);
  Tensor forward(const Tensor& input, const Tensor& hx = {});

  GRUCellOptions options;
};
EMBER_MODULE(GRUCell);

struct RNNCellOptions : detail::RNNCellOptionsBase<RNNCellOptions> {
  using RNNCellOptionsBase::RNNCellOptionsBase;
  EMBER_ARG(std::string, nonlinearity) = "tanh";  // or "relu"
};

class RNNCellImpl : public detail::RNNCellImplBase {
 public:
  RNNCellImpl(int64_t input_size, int64_t hidden_size) : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  explicit RNNCellImpl(const RNNCellOptions& options);
  Tensor forward(const Tensor& input, const Tensor& hx = {});

  RNNCellOptions options;
};
EMBER_MODULE(RNNCell);

}  // namespace ember::nn
