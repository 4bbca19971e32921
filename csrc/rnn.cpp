// Python bindings of the recurrent layers' functions: ember._C.lstm_cell, gru_cell,
// rnn_tanh_cell, rnn_relu_cell (torch's names) and _lstm, _gru, _rnn_tanh, _rnn_relu
// (torch._VF.lstm's arguments), which the nn.LSTM / nn.GRU / nn.RNN modules call.
#include "bindings.h"

namespace ember::python {

namespace {

using OptTensor = std::optional<Tensor>;

Tensor opt(const OptTensor& t) { return t.value_or(Tensor()); }

// torch.rnn_tanh_cell and its siblings with one hidden state share a signature.
template <Tensor (*cell)(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                         const Tensor&)>
void bind_cell(py::module_& m, const char* name) {
  m.def(name, [](const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                 const OptTensor& b_ih, const OptTensor& b_hh) {
    return cell(input, hx, w_ih, w_hh, opt(b_ih), opt(b_hh));
  }, py::arg("input"), py::arg("hx"), py::arg("w_ih"), py::arg("w_hh"), py::arg("b_ih") = py::none(),
     py::arg("b_hh") = py::none());
}

// _gru, _rnn_tanh, _rnn_relu: (output, h_n) from (input, hx or None, params, ...).
template <std::tuple<Tensor, Tensor> (*run)(const Tensor&, const Tensor&, const TensorList&, bool,
                                            int64_t, double, bool, bool, bool)>
void bind_sequence(py::module_& m, const char* name) {
  m.def(name, [](const Tensor& input, const OptTensor& hx, const TensorList& params, bool has_biases,
                 int64_t num_layers, double dropout, bool train, bool bidirectional, bool batch_first) {
    return run(input, opt(hx), params, has_biases, num_layers, dropout, train, bidirectional,
               batch_first);
  }, py::arg("input"), py::arg("hx"), py::arg("params"), py::arg("has_biases"), py::arg("num_layers"),
     py::arg("dropout"), py::arg("train"), py::arg("bidirectional"), py::arg("batch_first"));
}

}  // namespace

void bind_rnn(py::module_& m) {
  m.def("lstm_cell", [](const Tensor& input, const TensorList& hx, const Tensor& w_ih,
                        const Tensor& w_hh, const OptTensor& b_ih, const OptTensor& b_hh) {
    return lstm_cell(input, hx, w_ih, w_hh, opt(b_ih), opt(b_hh));
  }, py::arg("input"), py::arg("hx"), py::arg("w_ih"), py::arg("w_hh"), py::arg("b_ih") = py::none(),
     py::arg("b_hh") = py::none());
  bind_cell<&gru_cell>(m, "gru_cell");
  bind_cell<&rnn_tanh_cell>(m, "rnn_tanh_cell");
  bind_cell<&rnn_relu_cell>(m, "rnn_relu_cell");

  // hx: None or (h_0, c_0).
  m.def("_lstm", [](const Tensor& input, const std::optional<TensorList>& hx, const TensorList& params,
                    bool has_biases, int64_t num_layers, double dropout, bool train, bool bidirectional,
                    bool batch_first) {
    return lstm(input, hx.value_or(TensorList()), params, has_biases, num_layers, dropout, train,
                bidirectional, batch_first);
  }, py::arg("input"), py::arg("hx"), py::arg("params"), py::arg("has_biases"), py::arg("num_layers"),
     py::arg("dropout"), py::arg("train"), py::arg("bidirectional"), py::arg("batch_first"));
  bind_sequence<&gru>(m, "_gru");
  bind_sequence<&rnn_tanh>(m, "_rnn_tanh");
  bind_sequence<&rnn_relu>(m, "_rnn_relu");
}

}  // namespace ember::python
