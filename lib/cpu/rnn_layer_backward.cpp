// lstm_layer_backward and gru_layer_backward on the CPU (op functions in
// lib/ops/rnn_fused.cpp): the gradients of one direction of an LSTM or GRU layer in one
// call, from what lstm_layer / gru_layer saved (the LSTM's activated gates and cell
// states, the GRU's r, z, n and W_hn h + b_hn, and the hidden states they returned).
//
// Why one op: through the step ops, each step's backward was the fused cell backward
// plus an addmm backward (two products: dh for the previous step and this step's share
// of W_hh's gradient, a [4H, H] accumulation per step) and the autograd engine's
// bookkeeping for each node. Here the steps run backwards with one product each, dh =
// dgates_t W_hh into a reused block, and one pointwise pass that writes dgates_t
// straight into the [T, B, 4H] gradient of gx; W_hh's gradient is then one product over
// all steps at once, dgates^T [4H, T*B] by the previous hidden states [T*B, H] (the
// output sequence shifted by one step, plus h0), and the bias's one gemv. The GRU's
// likewise, with two gradients per step: gx's [r | z | n] and gh's (n's scaled by r).
#include <algorithm>
#include <vector>

#include "cpu/blas.h"
#include "cpu/nn_common.h"
#include "cpu/parallel.h"
#include "cpu/rnn_activations.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/factories.h"

namespace ember::cpu {
namespace {

template <typename T>
const T* ptr(const Tensor& t) { return static_cast<const T*>(t.data_ptr()); }
template <typename T>
T* mut(const Tensor& t) { return static_cast<T*>(t.data_ptr()); }

// Rows [b0, b1) of one step backwards. act: the step's activated gates [i | f | g | o];
// c_prev, c: the cell state before and after it; go: the output's gradient at this
// step; dh: the gradient reaching h from later steps; dc: c's, replaced by c_prev's.
// Writes the gates' pre-activation gradients to dgates. The formulas are
// kernels/rnn_cell_math.h's lstm_cell_point_backward, from the saved activations.
template <typename T>
EMBER_CLONES void lstm_layer_backward_rows(const T* act, const T* c_prev, const T* c, const T* go, const T* dh, T* dc,
                                           T* dgates, int64_t b0, int64_t b1, int64_t H) {
  using Act = ActivationsFor<T>;
  for (int64_t b = b0; b < b1; ++b) {
    const T* a = act + b * 4 * H;
    T* dg = dgates + b * 4 * H;
    const int64_t row = b * H;
#pragma omp simd
    for (int64_t j = 0; j < H; ++j) {
      const T i = a[j], f = a[H + j], g = a[2 * H + j], o = a[3 * H + j];
      const T dh_total = dh[row + j] + go[row + j];
      const T tc = Act::tanh(c[row + j]);
      const T dc_total = dc[row + j] + dh_total * o * (T(1) - tc * tc);
      dg[j] = dc_total * g * i * (T(1) - i);
      dg[H + j] = dc_total * c_prev[row + j] * f * (T(1) - f);
      dg[2 * H + j] = dc_total * i * (T(1) - g * g);
      dg[3 * H + j] = dh_total * tc * o * (T(1) - o);
      dc[row + j] = dc_total * f;
    }
  }
}

// Rows [b0, b1) of one GRU step backwards. ws: the step's [r | z | n | hn] (hn = W_hn h
// + b_hn); h_prev: its input state; go: the output's gradient at this step; dh: the
// gradient reaching h from later steps, replaced by dh_new z (the direct part of h_prev's;
// the caller adds dgh W_hh). Writes gx's and gh's pre-activation gradients. The formulas
// are kernels/rnn_cell_math.h's gru_cell_point_backward, from the saved values.
template <typename T>
EMBER_CLONES void gru_layer_backward_rows(const T* ws, const T* h_prev, const T* go, T* dh, T* dgx, T* dgh,
                                          int64_t b0, int64_t b1, int64_t H) {
  for (int64_t b = b0; b < b1; ++b) {
    const T* w = ws + b * 4 * H;
    T* dx = dgx + b * 3 * H;
    T* dy = dgh + b * 3 * H;
    const int64_t row = b * H;
#pragma omp simd
    for (int64_t j = 0; j < H; ++j) {
      const T r = w[j], z = w[H + j], n = w[2 * H + j], hn = w[3 * H + j];
      const T d = dh[row + j] + go[row + j];
      const T dn = d * (T(1) - z) * (T(1) - n * n);
      const T dz = d * (h_prev[row + j] - n) * z * (T(1) - z);
      const T dr = dn * hn * r * (T(1) - r);
      dx[j] = dy[j] = dr;
      dx[H + j] = dy[H + j] = dz;
      dx[2 * H + j] = dn;
      dy[2 * H + j] = dn * r;
      dh[row + j] = d * z;
    }
  }
}

// Rows per task: about kGrainSize cells' worth (as the forward's).
int64_t row_grain(int64_t H) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(H * 8, 1)); }

// W_hh's gradient, sum over steps of dgates_t^T h_prev_t, as two products: the first
// step's h_prev is h0, the others' the output rows one step before them (after them when
// reverse), contiguous in `output`. dgates: [steps, B, G] (G = 4H or 3H); dw: [G, H].
template <typename T>
void recurrent_weight_grad(const T* dgates, int64_t G, const T* h0, const T* output, int64_t steps, int64_t B,
                           int64_t H, bool reverse, T* dw) {
  const int64_t first = reverse ? steps - 1 : 0, rest = reverse ? 0 : 1, rest_h = reverse ? 1 : 0;
  blas::gemm(true, false, G, H, B, T(1), dgates + first * B * G, G, h0, H, T(0), dw, H);
  blas::gemm(true, false, G, H, (steps - 1) * B, T(1), dgates + rest * B * G, G, output + rest_h * B * H, H, T(1),
             dw, H);
}

// A bias's gradient: the rows of dgates [rows, G] summed (one gemv).
template <typename T>
void sum_rows(const T* dgates, int64_t rows, int64_t G, T* out) {
  const std::vector<T> ones(static_cast<size_t>(rows), T(1));
  blas::gemv(true, rows, G, T(1), dgates, G, ones.data(), 1, T(0), out, 1);
}

// Inputs (contiguous, one dtype): grad_output [T, B, H], grad_h_n, grad_c_n [B, H] (each
// may be undefined: zeros), w_hh [4H, H], h0, c0 [B, H], output [T, B, H], gates
// [T, B, 4H], cells [T, B, H]; attr reverse. Outputs: grad_gx [T, B, 4H], grad_w_hh
// [4H, H], grad_h0, grad_c0 [B, H], grad_bias [4H].
void lstm_layer_backward_kernel(OpCall& call) {
  const Tensor &go = call.in(0), &gh_n = call.in(1), &gc_n = call.in(2), &w_hh = call.in(3), &h0 = call.in(4),
               &c0 = call.in(5), &output = call.in(6), &gates = call.in(7), &cells = call.in(8);
  const bool reverse = LstmLayerBackwardArgs::from(call).reverse;
  const int64_t steps = gates.size(0), B = h0.size(0), H = h0.size(1);
  const TensorOptions opts(gates.dtype());
  Tensor dgx = empty({steps, B, 4 * H}, opts);
  Tensor dw = zeros({4 * H, H}, opts);
  Tensor dh0 = gh_n.defined() ? gh_n.clone() : zeros({B, H}, opts);  // dh, carried back step by step
  Tensor dc0 = gc_n.defined() ? gc_n.clone() : zeros({B, H}, opts);  // dc, likewise
  Tensor dbias = zeros({4 * H}, opts);
  auto run = [&](auto zero) {
    using T = decltype(zero);
    // The output's gradient at each step, or one row of zeros read by every step.
    const std::vector<T> no_grad(go.defined() ? 0 : static_cast<size_t>(B * H), T(0));
    const T* go_base = go.defined() ? ptr<T>(go) : no_grad.data();
    const int64_t go_step = go.defined() ? B * H : 0;
    T* dh = mut<T>(dh0);
    T* dc = mut<T>(dc0);
    for (int64_t i = 0; i < steps; ++i) {
      const int64_t t = reverse ? i : steps - 1 - i;  // the forward's steps, last first
      const bool first = t == (reverse ? steps - 1 : 0);  // the forward's first step reads c0
      const T* c_prev = first ? ptr<T>(c0) : ptr<T>(cells) + (reverse ? t + 1 : t - 1) * B * H;
      T* dg = mut<T>(dgx) + t * B * 4 * H;
      parallel_for(0, B, row_grain(H), [&](int64_t b0, int64_t b1) {
        lstm_layer_backward_rows(ptr<T>(gates) + t * B * 4 * H, c_prev, ptr<T>(cells) + t * B * H,
                                 go_base + t * go_step, dh, dc, dg, b0, b1, H);
      });
      // dh for the previous step: dgates_t [B, 4H] @ W_hh [4H, H].
      blas::gemm(false, false, B, H, 4 * H, T(1), dg, 4 * H, ptr<T>(w_hh), H, T(0), dh, H);
    }
    if (steps == 0) return;
    recurrent_weight_grad(ptr<T>(dgx), 4 * H, ptr<T>(h0), ptr<T>(output), steps, B, H, reverse, mut<T>(dw));
    sum_rows(ptr<T>(dgx), steps * B, 4 * H, mut<T>(dbias));
  };
  if (gates.dtype() == kFloat64) run(0.0);
  else run(0.0f);
  for (Tensor* t : {&dgx, &dw, &dh0, &dc0, &dbias}) call.outputs.push_back(*t);
}

// Inputs (contiguous, one dtype): grad_output [T, B, H], grad_h_n [B, H] (each may be
// undefined: zeros), w_hh [3H, H], h0 [B, H], output [T, B, H], workspace [T, B, 4H]; attr
// reverse. Outputs: grad_gx [T, B, 3H], grad_w_hh [3H, H], grad_h0 [B, H], grad_b_ih and
// grad_b_hh [3H].
void gru_layer_backward_kernel(OpCall& call) {
  const Tensor &go = call.in(0), &gh_n = call.in(1), &w_hh = call.in(2), &h0 = call.in(3), &output = call.in(4),
               &ws = call.in(5);
  const bool reverse = GruLayerBackwardArgs::from(call).reverse;
  const int64_t steps = ws.size(0), B = h0.size(0), H = h0.size(1);
  const TensorOptions opts(ws.dtype());
  Tensor dgx = empty({steps, B, 3 * H}, opts);
  Tensor dgh = empty({steps, B, 3 * H}, opts);  // gh = h W_hh^T + b_hh's gradient
  Tensor dw = zeros({3 * H, H}, opts);
  Tensor dh0 = gh_n.defined() ? gh_n.clone() : zeros({B, H}, opts);  // dh, carried back step by step
  Tensor db_ih = zeros({3 * H}, opts), db_hh = zeros({3 * H}, opts);
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const std::vector<T> no_grad(go.defined() ? 0 : static_cast<size_t>(B * H), T(0));
    const T* go_base = go.defined() ? ptr<T>(go) : no_grad.data();
    const int64_t go_step = go.defined() ? B * H : 0;
    T* dh = mut<T>(dh0);
    for (int64_t i = 0; i < steps; ++i) {
      const int64_t t = reverse ? i : steps - 1 - i;
      const bool first = t == (reverse ? steps - 1 : 0);
      const T* h_prev = first ? ptr<T>(h0) : ptr<T>(output) + (reverse ? t + 1 : t - 1) * B * H;
      T* dy = mut<T>(dgh) + t * B * 3 * H;
      parallel_for(0, B, row_grain(H), [&](int64_t b0, int64_t b1) {
        gru_layer_backward_rows(ptr<T>(ws) + t * B * 4 * H, h_prev, go_base + t * go_step, dh,
                                mut<T>(dgx) + t * B * 3 * H, dy, b0, b1, H);
      });
      // h_prev's gradient: dh_new z (written above) + dgh_t [B, 3H] @ W_hh [3H, H].
      blas::gemm(false, false, B, H, 3 * H, T(1), dy, 3 * H, ptr<T>(w_hh), H, T(1), dh, H);
    }
    if (steps == 0) return;
    recurrent_weight_grad(ptr<T>(dgh), 3 * H, ptr<T>(h0), ptr<T>(output), steps, B, H, reverse, mut<T>(dw));
    sum_rows(ptr<T>(dgx), steps * B, 3 * H, mut<T>(db_ih));
    sum_rows(ptr<T>(dgh), steps * B, 3 * H, mut<T>(db_hh));
  };
  if (ws.dtype() == kFloat64) run(0.0);
  else run(0.0f);
  for (Tensor* t : {&dgx, &dw, &dh0, &db_ih, &db_hh}) call.outputs.push_back(*t);
}

EMBER_REGISTER_KERNEL(lstm_layer_backward, CPU, lstm_layer_backward_kernel);
EMBER_REGISTER_KERNEL(gru_layer_backward, CPU, gru_layer_backward_kernel);

}  // namespace
}  // namespace ember::cpu
