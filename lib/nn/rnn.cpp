#include "ember/nn/modules/rnn.h"

#include <cmath>
#include <map>

#include "ember/nn/init.h"
#include "ember/ops/factories.h"
#include "ember/ops/rnn.h"

namespace ember::nn {
namespace detail {
namespace {

const std::map<std::string, int64_t> kGates = {{"LSTM", 4}, {"GRU", 3}, {"RNN_TANH", 1}, {"RNN_RELU", 1}};

}  // namespace

RNNImplBase::RNNImplBase(RNNSettings settings) : settings_(std::move(settings)) {
  const RNNSettings& s = settings_;
  EMBER_CHECK_VALUE(s.dropout >= 0 && s.dropout <= 1,
                    "dropout should be a number in range [0, 1] representing the probability of an "
                    "element being zeroed");
  EMBER_CHECK_VALUE(s.input_size > 0, "input_size must be greater than zero");
  EMBER_CHECK_VALUE(s.hidden_size > 0, "hidden_size must be greater than zero");
  EMBER_CHECK_VALUE(s.num_layers > 0, "num_layers must be greater than zero");
  int64_t gate_size = kGates.at(s.mode) * s.hidden_size;
  int64_t directions = s.bidirectional ? 2 : 1;
  for (int64_t layer = 0; layer < s.num_layers; ++layer) {
    int64_t layer_input = layer == 0 ? s.input_size : s.hidden_size * directions;
    for (int64_t direction = 0; direction < directions; ++direction) {
      std::string suffix = "_l" + std::to_string(layer) + (direction == 1 ? "_reverse" : "");
      flat_weights_.push_back(register_parameter("weight_ih" + suffix, empty({gate_size, layer_input})));
      flat_weights_.push_back(register_parameter("weight_hh" + suffix, empty({gate_size, s.hidden_size})));
      if (s.bias) {
        flat_weights_.push_back(register_parameter("bias_ih" + suffix, empty({gate_size})));
        flat_weights_.push_back(register_parameter("bias_hh" + suffix, empty({gate_size})));
      }
    }
  }
  reset_parameters();
}

// torch's init of every recurrent parameter: uniform in +-1/sqrt(hidden_size).
void RNNImplBase::reset_parameters() {
  double bound = 1 / std::sqrt(static_cast<double>(settings_.hidden_size));
  for (Tensor& w : flat_weights_) init::uniform_(w, -bound, bound);
}

// Python's repr: "LSTM(10, 20, num_layers=2, batch_first=True)".
void RNNImplBase::pretty_print(std::ostream& stream) const {
  const RNNSettings& s = settings_;
  stream << (s.mode.rfind("RNN", 0) == 0 ? "RNN" : s.mode) << "(" << s.input_size << ", " << s.hidden_size;
  if (s.num_layers != 1) stream << ", num_layers=" << s.num_layers;
  if (!s.bias) stream << ", bias=False";
  if (s.batch_first) stream << ", batch_first=True";
  if (s.dropout != 0) stream << ", dropout=" << s.dropout;
  if (s.bidirectional) stream << ", bidirectional=True";
  stream << ")";
}

bool RNNImplBase::check_forward_args(const Tensor& input, const TensorList& states) const {
  const RNNSettings& s = settings_;
  std::string name = s.mode.rfind("RNN", 0) == 0 ? "RNN" : s.mode;
  EMBER_CHECK_VALUE(input.dim() == 2 || input.dim() == 3, name, ": Expected input to be 2D or 3D, got ",
                    input.dim(), "D instead");
  EMBER_CHECK_VALUE(input.dtype() == flat_weights_[0].dtype(), "RNN input dtype (", dtype_name(input.dtype()),
                    ") does not match weight dtype (", dtype_name(flat_weights_[0].dtype()), ")");
  EMBER_CHECK(input.size(-1) == s.input_size, "input.size(-1) must be equal to input_size. Expected ",
              s.input_size, ", got ", input.size(-1));
  bool batched = input.dim() == 3;
  DimVector expected = {s.num_layers * (s.bidirectional ? 2 : 1)};
  if (batched) expected.push_back(input.size(s.batch_first ? 0 : 1));
  expected.push_back(s.hidden_size);
  for (const Tensor& h : states) {
    if (!h.defined()) continue;
    EMBER_CHECK(h.sizes() == expected, "Expected hidden size ", shape_str(expected), ", got ",
                shape_str(h.sizes()));
  }
  return batched;
}

}  // namespace detail

LSTMImpl::LSTMImpl(const LSTMOptions& options_)
    : RNNImplBase(detail::settings_of("LSTM", options_)), options(options_) {}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(const Tensor& input,
                                                                 std::tuple<Tensor, Tensor> hx) {
  auto& [h0, c0] = hx;
  EMBER_CHECK(h0.defined() == c0.defined(), "LSTM: give both h_0 and c_0 or neither");
  TensorList states;
  if (h0.defined()) states = {h0, c0};
  check_forward_args(input, states);
  auto [output, h, c] = lstm(input, states, flat_weights_, options.bias(), options.num_layers(),
                             options.dropout(), is_training(), options.bidirectional(), options.batch_first());
  return {output, {h, c}};
}

GRUImpl::GRUImpl(const GRUOptions& options_)
    : RNNImplBase(detail::settings_of("GRU", options_)), options(options_) {}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, const Tensor& hx) {
  check_forward_args(input, {hx});
  return gru(input, hx, flat_weights_, options.bias(), options.num_layers(), options.dropout(),
             is_training(), options.bidirectional(), options.batch_first());
}

namespace {
std::string rnn_mode(const RNNOptions& options) {
  EMBER_CHECK_VALUE(options.nonlinearity() == "tanh" || options.nonlinearity() == "relu",
                    "Unknown nonlinearity '", options.nonlinearity(), "'. Select from 'tanh' or 'relu'.");
  return options.nonlinearity() == "tanh" ? "RNN_TANH" : "RNN_RELU";
}
}  // namespace

RNNImpl::RNNImpl(const RNNOptions& options_)
    : RNNImplBase(detail::settings_of(rnn_mode(options_), options_)), options(options_) {}

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, const Tensor& hx) {
  check_forward_args(input, {hx});
  auto fn = options.nonlinearity() == "tanh" ? rnn_tanh : rnn_relu;
  return fn(input, hx, flat_weights_, options.bias(), options.num_layers(), options.dropout(), is_training(),
            options.bidirectional(), options.batch_first());
}

}  // namespace ember::nn

// ---- cells ------------------------------------------------------------------------------------
namespace ember::nn {
namespace detail {

RNNCellImplBase::RNNCellImplBase(std::string name, int64_t input_size, int64_t hidden_size, bool bias,
                                 int64_t gates, std::string nonlinearity)
    : name_(std::move(name)), nonlinearity_(std::move(nonlinearity)), input_size_(input_size),
      hidden_size_(hidden_size), bias_(bias) {
  EMBER_CHECK_VALUE(nonlinearity_ == "tanh" || nonlinearity_ == "relu", "Unknown nonlinearity '",
                    nonlinearity_, "'. Select from 'tanh' or 'relu'.");
  EMBER_CHECK_VALUE(input_size > 0 && hidden_size > 0, name_,
                    ": input_size and hidden_size must be greater than zero, got ", input_size, " and ",
                    hidden_size);
  weight_ih = register_parameter("weight_ih", empty({gates * hidden_size, input_size}));
  weight_hh = register_parameter("weight_hh", empty({gates * hidden_size, hidden_size}));
  bias_ih = register_parameter("bias_ih", bias ? empty({gates * hidden_size}) : Tensor(), bias);
  bias_hh = register_parameter("bias_hh", bias ? empty({gates * hidden_size}) : Tensor(), bias);
  reset_parameters();
}

void RNNCellImplBase::reset_parameters() {
  double bound = 1 / std::sqrt(static_cast<double>(hidden_size_));
  for (Tensor& w : parameters(false)) init::uniform_(w, -bound, bound);
}

// Python's repr: "LSTMCell(3, 4)", "RNNCell(3, 4, bias=False, nonlinearity=relu)".
void RNNCellImplBase::pretty_print(std::ostream& stream) const {
  stream << name_ << "(" << input_size_ << ", " << hidden_size_;
  if (!bias_) stream << ", bias=False";
  if (nonlinearity_ != "tanh") stream << ", nonlinearity=" << nonlinearity_;
  stream << ")";
}

bool RNNCellImplBase::batched(Tensor& input, TensorList& states) const {
  EMBER_CHECK_VALUE(input.dim() == 1 || input.dim() == 2, name_, ": Expected input to be 1D or 2D, got ",
                    input.dim(), "D instead");
  bool is_batched = input.dim() == 2;
  if (!is_batched) input = input.unsqueeze(0);
  for (Tensor& s : states) {
    if (!s.defined()) {
      s = zeros({input.size(0), hidden_size_}, TensorOptions(input.dtype()).device(input.device()));
      continue;
    }
    EMBER_CHECK_VALUE(s.dim() == 1 || s.dim() == 2, name_, ": Expected hidden to be 1D or 2D, got ",
                      s.dim(), "D instead");
    if (!is_batched) s = s.unsqueeze(0);
  }
  return is_batched;
}

}  // namespace detail

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& options_)
    : RNNCellImplBase("LSTMCell", options_.input_size(), options_.hidden_size(), options_.bias(), 4),
      options(options_) {}

std::tuple<Tensor, Tensor> LSTMCellImpl::forward(const Tensor& input_, std::tuple<Tensor, Tensor> hx) {
  Tensor input = input_;
  TensorList states = {std::get<0>(hx), std::get<1>(hx)};
  bool is_batched = batched(input, states);
  auto [h, c] = lstm_cell(input, states, weight_ih, weight_hh, bias_ih, bias_hh);
  if (!is_batched) return {h.squeeze(0), c.squeeze(0)};
  return {h, c};
}

GRUCellImpl::GRUCellImpl(const GRUCellOptions& options_)
    : RNNCellImplBase("GRUCell", options_.input_size(), options_.hidden_size(), options_.bias(), 3),
      options(options_) {}

Tensor GRUCellImpl::forward(const Tensor& input_, const Tensor& hx) {
  Tensor input = input_;
  TensorList states = {hx};
  bool is_batched = batched(input, states);
  Tensor h = gru_cell(input, states[0], weight_ih, weight_hh, bias_ih, bias_hh);
  return is_batched ? h : h.squeeze(0);
}

RNNCellImpl::RNNCellImpl(const RNNCellOptions& options_)
    : RNNCellImplBase("RNNCell", options_.input_size(), options_.hidden_size(), options_.bias(), 1,
                      options_.nonlinearity()),
      options(options_) {}

Tensor RNNCellImpl::forward(const Tensor& input_, const Tensor& hx) {
  Tensor input = input_;
  TensorList states = {hx};
  bool is_batched = batched(input, states);
  auto cell = options.nonlinearity() == "tanh" ? rnn_tanh_cell : rnn_relu_cell;
  Tensor h = cell(input, states[0], weight_ih, weight_hh, bias_ih, bias_hh);
  return is_batched ? h : h.squeeze(0);
}

}  // namespace ember::nn
