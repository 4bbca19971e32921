// One direction of one recurrent layer as one dispatched op, for forward passes that
// record no graph (their rows are non-differentiable): lib/ops/rnn.cpp calls them when
// no gradient is wanted, the tensors are float32/float64 on the CPU and nothing traces
// or autocasts; otherwise it runs the layer step by step through lstm_cell_fused /
// gru_cell_fused. Op functions in lib/ops/rnn_fused.cpp, kernels in lib/cpu/rnn_layer.cpp.
#pragma once
#include <tuple>

#include "ember/tensor.h"

namespace ember {

// gx [T, B, 4H]: x W_ih^T for every step (no bias), gates (i, f, g, o); w_hh [4H, H];
// h0, c0 [B, H]; bias [4H] = b_ih + b_hh, or undefined. Runs the steps from T - 1 down
// to 0 when reverse. Returns (output [T, B, H], h_n, c_n).
std::tuple<Tensor, Tensor, Tensor> lstm_layer_inference(const Tensor& gx, const Tensor& w_hh, const Tensor& h0,
                                                        const Tensor& c0, const Tensor& bias, bool reverse);
// gx [T, B, 3H]: x W_ih^T (no bias), gates (r, z, n); w_hh [3H, H]; h0 [B, H]; b_ih and
// b_hh [3H] or undefined. Returns (output [T, B, H], h_n).
std::tuple<Tensor, Tensor> gru_layer_inference(const Tensor& gx, const Tensor& w_hh, const Tensor& h0,
                                               const Tensor& b_ih, const Tensor& b_hh, bool reverse);

}  // namespace ember
