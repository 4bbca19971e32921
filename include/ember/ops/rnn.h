// Recurrent layers as functions (torch.lstm_cell, torch.lstm, torch.gru, ...): the
// computations under nn.LSTM / nn.GRU / nn.RNN and their cells. They are composites
// of ember ops (matmul, sigmoid, tanh, ...), so autograd differentiates them and any
// device with those ops runs them.
//
// Parameters follow PyTorch's layout. For gate count G (LSTM 4, GRU 3, RNN 1) and
// hidden size H: w_ih [G*H, input_size], w_hh [G*H, H], b_ih and b_hh [G*H].
// Gate order: LSTM i, f, g, o; GRU r, z, n with n = tanh(W_in x + b_in + r * (W_hn h + b_hn)).
#pragma once
#include <tuple>

#include "ember/tensor.h"

namespace ember {

// ---- one time step (lib/ops/rnn.cpp) ------------------------------------------------------
// input [B, input_size], hidden states [B, H]; biases may be undefined (no bias).
// The pointwise part of one LSTM step in one pass (PyTorch's _thnn_fused_lstm_cell):
// gates [B, 4H] are the pre-activations x W_ih^T + h W_hh^T + biases, in the order
// (i, f, g, o); c [B, H] the previous cell state. Returns (h', c'). lstm and lstm_cell
// run on it.
std::tuple<Tensor, Tensor> lstm_cell_fused(const Tensor& gates, const Tensor& c);
// The pointwise part of one GRU step in one pass (PyTorch's _thnn_fused_gru_cell):
// gx = x W_ih^T + b_ih and gh = h W_hh^T + b_hh, both [B, 3H] in the order (r, z, n);
// h [B, H]. Returns h'.
Tensor gru_cell_fused(const Tensor& gx, const Tensor& gh, const Tensor& h);

// lstm_cell: hx = {h, c}; returns (h', c').
std::tuple<Tensor, Tensor> lstm_cell(const Tensor& input, const TensorList& hx, const Tensor& w_ih,
                                     const Tensor& w_hh, const Tensor& b_ih = {},
                                     const Tensor& b_hh = {});
Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                const Tensor& b_ih = {}, const Tensor& b_hh = {});
Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const Tensor& b_ih = {}, const Tensor& b_hh = {});
Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const Tensor& b_ih = {}, const Tensor& b_hh = {});

// ---- whole sequences, stacked and bidirectional (lib/ops/rnn.cpp) ----------------------------
// input [T, B, input_size] ([B, T, input_size] when batch_first) or unbatched [T, input_size].
// Initial hidden states [num_layers * D, B, H] (unbatched: [num_layers * D, H]), D = 2 when
// bidirectional; an undefined one (or an empty hx list for lstm) means zeros.
// params: per layer, forward direction then reverse: w_ih, w_hh, then b_ih, b_hh when
// has_biases (nn.LSTM's _flat_weights order). dropout: applied to the output of every
// layer but the last when train. Returns output [T, B, D*H] (batch_first: [B, T, D*H];
// unbatched: [T, D*H]) and the final hidden states, shaped like the initial ones.
// LSTM projections (proj_size > 0: a w_hr per layer) are not supported.
std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& input, const TensorList& hx,
                                        const TensorList& params, bool has_biases,
                                        int64_t num_layers, double dropout, bool train,
                                        bool bidirectional, bool batch_first);
std::tuple<Tensor, Tensor> gru(const Tensor& input, const Tensor& hx, const TensorList& params,
                               bool has_biases, int64_t num_layers, double dropout, bool train,
                               bool bidirectional, bool batch_first);
std::tuple<Tensor, Tensor> rnn_tanh(const Tensor& input, const Tensor& hx, const TensorList& params,
                                    bool has_biases, int64_t num_layers, double dropout, bool train,
                                    bool bidirectional, bool batch_first);
std::tuple<Tensor, Tensor> rnn_relu(const Tensor& input, const Tensor& hx, const TensorList& params,
                                    bool has_biases, int64_t num_layers, double dropout, bool train,
                                    bool bidirectional, bool batch_first);

}  // namespace ember
