// One direction of one recurrent layer as one dispatched op: lib/ops/rnn.cpp calls them
// when the tensors are float32/float64 on the CPU and nothing traces or autocasts. The
// *_inference rows record no graph (non-differentiable), for passes that want no
// gradient; lstm_layer and gru_layer are the differentiable forms, whose backward
// (lstm_layer_backward, gru_layer_backward) is one op for the whole layer too.
// Otherwise (other devices, traces, autocast) rnn.cpp runs the layer step by step
// through lstm_cell_fused / gru_cell_fused. Op functions in lib/ops/rnn_fused.cpp,
// kernels in lib/cpu/rnn_layer.cpp and lib/cpu/rnn_layer_backward.cpp.
#pragma once
#include <tuple>

#include "ember/tensor.h"

namespace ember {

// gx [T, B, 4H]: x W_ih^T for every step (no bias), gates (i, f, g, o); w_hh [4H, H];
// h0, c0 [B, H]; bias [4H] = b_ih + b_hh, or undefined. Runs the steps from T - 1 down
// to 0 when reverse. Returns (output [T, B, H], h_n, c_n).
std::tuple<Tensor, Tensor, Tensor> lstm_layer_inference(const Tensor& gx, const Tensor& w_hh, const Tensor& h0,
                                                        const Tensor& c0, const Tensor& bias, bool reverse);
// lstm_layer_inference's values with a derivative: also returns the activated gates
// (sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)) of every step [T, B, 4H] and every step's
// cell state [T, B, H], which its backward reads. Returns (output, h_n, c_n, gates, cells).
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> lstm_layer(const Tensor& gx, const Tensor& w_hh, const Tensor& h0,
                                                              const Tensor& c0, const Tensor& bias, bool reverse);
// The gradients of lstm_layer wrt gx, w_hh, h0, c0 and its bias, given those of output,
// h_n and c_n (each may be undefined: no gradient), from the forward's inputs w_hh, h0
// and c0 and its outputs output, gates and cells. Returns (grad_gx, grad_w_hh, grad_h0,
// grad_c0, grad_bias).
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> lstm_layer_backward(
    const Tensor& grad_output, const Tensor& grad_h_n, const Tensor& grad_c_n, const Tensor& w_hh, const Tensor& h0,
    const Tensor& c0, const Tensor& output, const Tensor& gates, const Tensor& cells, bool reverse);
// gx [T, B, 3H]: x W_ih^T (no bias), gates (r, z, n); w_hh [3H, H]; h0 [B, H]; b_ih and
// b_hh [3H] or undefined. Returns (output [T, B, H], h_n).
std::tuple<Tensor, Tensor> gru_layer_inference(const Tensor& gx, const Tensor& w_hh, const Tensor& h0,
                                               const Tensor& b_ih, const Tensor& b_hh, bool reverse);

// gru_layer_inference's values with a derivative: also returns the workspace [T, B, 4H]
// of every step's r, z, n and W_hn h + b_hn. Returns (output, h_n, workspace).
std::tuple<Tensor, Tensor, Tensor> gru_layer(const Tensor& gx, const Tensor& w_hh, const Tensor& h0,
                                             const Tensor& b_ih, const Tensor& b_hh, bool reverse);
// The gradients of gru_layer wrt gx, w_hh, h0, b_ih and b_hh, given those of output and
// h_n (each may be undefined), from w_hh, h0, the output and the workspace. Returns
// (grad_gx, grad_w_hh, grad_h0, grad_b_ih, grad_b_hh).
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> gru_layer_backward(const Tensor& grad_output,
                                                                      const Tensor& grad_h_n, const Tensor& w_hh,
                                                                      const Tensor& h0, const Tensor& output,
                                                                      const Tensor& workspace, bool reverse);

}  // namespace ember
