// The pointwise part of one LSTM and one GRU step, per element, shared by the CPU and
// CUDA kernels of lstm_cell_fused, gru_cell_fused and their backward
// (lib/cpu/rnn_cell.cpp, lib/cuda/nn/rnn_cell.cu).
//
// LSTM forward, from the pre-activation gates (i, f, g, o) and the previous cell state:
//   c = sigmoid(f) c_prev + sigmoid(i) tanh(g),   h = sigmoid(o) tanh(c).
// Backward, given dh and dc (the gradient reaching c from later steps):
//   dc_total = dc + dh sigmoid(o) (1 - tanh(c)^2), and from it the four gate
//   gradients and dc_prev = dc_total sigmoid(f).
// `Act` supplies sigmoid and tanh: the CPU's float32 rows use its vectorizable ones.
#pragma once
#include <cmath>

#include "kernels/elementwise_math.h"

// Forced inline: the CPU kernels' loops vectorize only when every call in them is
// inlined, and GCC's inliner gives up in a file with this many instantiations.
#if defined(__CUDACC__)
#define EMBER_CELL_INLINE __host__ __device__ __forceinline__
#else
#define EMBER_CELL_INLINE [[gnu::always_inline]] inline
#endif

namespace ember {

struct StdActivations {
  template <typename T>
  EMBER_CELL_INLINE static T sigmoid(T x) { return sigmoid_value(x); }
  template <typename T>
  EMBER_CELL_INLINE static T tanh(T x) { return std::tanh(x); }
};

template <typename T>
struct LstmCellState {
  T h, c;
};

template <typename Act, typename T>
EMBER_CELL_INLINE LstmCellState<T> lstm_cell_point(T gi, T gf, T gg, T go, T c_prev) {
  const T c = Act::sigmoid(gf) * c_prev + Act::sigmoid(gi) * Act::tanh(gg);
  return {Act::sigmoid(go) * Act::tanh(c), c};
}

template <typename T>
struct LstmCellGrads {
  T di, df, dg, d_o, dc_prev;  // the gates' (pre-activation) gradients, then c_prev's
};

template <typename Act, typename T>
EMBER_CELL_INLINE LstmCellGrads<T> lstm_cell_point_backward(T gi, T gf, T gg, T go, T c_prev,
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

// GRU forward, from gx = x W_ih^T + b_ih and gh = h W_hh^T + b_hh (each [r | z | n]):
//   r = sigmoid(gx_r + gh_r), z = sigmoid(gx_z + gh_z), n = tanh(gx_n + r gh_n),
//   h' = n + z (h - n).
template <typename Act, typename T>
EMBER_CELL_INLINE T gru_cell_point(T xr, T xz, T xn, T hr, T hz, T hn, T h) {
  const T r = Act::sigmoid(xr + hr), z = Act::sigmoid(xz + hz);
  const T n = Act::tanh(xn + r * hn);
  return n + z * (h - n);
}

template <typename T>
struct GruCellGrads {
  T dr, dz, dxn, dhn, dh;  // d(gx_r) = d(gh_r) = dr, likewise dz; gx_n and gh_n differ
};

template <typename Act, typename T>
EMBER_CELL_INLINE GruCellGrads<T> gru_cell_point_backward(T xr, T xz, T xn, T hr, T hz, T hn,
                                                                 T h, T dh_new) {
  const T r = Act::sigmoid(xr + hr), z = Act::sigmoid(xz + hz);
  const T n = Act::tanh(xn + r * hn);
  const T dn = dh_new * (T(1) - z) * (T(1) - n * n);  // wrt n's pre-activation
  GruCellGrads<T> g;
  g.dz = dh_new * (h - n) * z * (T(1) - z);
  g.dr = dn * hn * r * (T(1) - r);
  g.dxn = dn;
  g.dhn = dn * r;
  g.dh = dh_new * z;
  return g;
}

}  // namespace ember
