// One LSTM cell's pointwise part, per element, shared by the CPU and CUDA kernels of
// lstm_cell_fused and its backward (lib/cpu/rnn_cell.cpp, lib/cuda/nn/rnn_cell.cu).
//
// Forward, from the pre-activation gates (i, f, g, o) and the previous cell state:
//   c = sigmoid(f) c_prev + sigmoid(i) tanh(g),   h = sigmoid(o) tanh(c).
// Backward, given dh and dc (the gradient reaching c from later steps):
//   dc_total = dc + dh sigmoid(o) (1 - tanh(c)^2), and from it the four gate
//   gradients and dc_prev = dc_total sigmoid(f).
// `Act` supplies sigmoid and tanh: the CPU's float32 rows use its vectorizable ones.
#pragma once
#include <cmath>

#include "core/elementwise_math.h"

namespace ember {

struct StdActivations {
  template <typename T>
  EMBER_HOST_DEVICE static T sigmoid(T x) { return sigmoid_value(x); }
  template <typename T>
  EMBER_HOST_DEVICE static T tanh(T x) { return std::tanh(x); }
};

template <typename Act, typename T>
EMBER_HOST_DEVICE inline void lstm_cell_point(T gi, T gf, T gg, T go, T c_prev, T& h, T& c) {
  c = Act::sigmoid(gf) * c_prev + Act::sigmoid(gi) * Act::tanh(gg);
  h = Act::sigmoid(go) * Act::tanh(c);
}

template <typename T>
struct LstmCellGrads {
  T di, df, dg, d_o, dc_prev;  // the gates' (pre-activation) gradients, then c_prev's
};

template <typename Act, typename T>
EMBER_HOST_DEVICE inline LstmCellGrads<T> lstm_cell_point_backward(T gi, T gf, T gg, T go, T c_prev,
                                                                   T c, T dh, T dc) {
  const T i = Act::sigmoid(gi), f = Act::sigmoid(gf), g = Act::tanh(gg), o = Act::sigmoid(go);
  const T tc = Act::tanh(c);
  const T dc_total = dc + dh * o * (T(1) - tc * tc);
  LstmCellGrads<T> r;
  r.di = dc_total * g * i * (T(1) - i);
  r.df = dc_total * c_prev * f * (T(1) - f);
  r.dg = dc_total * i * (T(1) - g * g);
  r.d_o = dh * tc * o * (T(1) - o);
  r.dc_prev = dc_total * f;
  return r;
}

}  // namespace ember
