// lstm_layer_inference, gru_layer_inference, lstm_layer and gru_layer on the CPU (op
// functions in lib/ops/rnn_fused.cpp): one direction of one recurrent layer in one call.
// The inference rows serve the forward passes that record no graph (lib/ops/rnn.cpp
// takes that path when nothing needs a gradient); lstm_layer and gru_layer are the same
// recurrences that also keep what each step's backward needs (the LSTM's activated gates
// and cell states, the GRU's r, z, n and W_hn h + b_hn) for lstm_layer_backward /
// gru_layer_backward (rnn_layer_backward.cpp).
//
// Why a whole-layer kernel: run step by step through ops, each time step costs a
// dispatched addmm (a new [B, G*H] gates tensor), the fused cell op (two new [B, H]
// tensors) and a final stack of all h; at small sizes (B = 8, H = 32: a 1 µs product)
// those calls are most of the step. Here W_hh is transposed once per call into a
// scratch [H, G*H] (oneDNN's sgemm runs the untransposed form ~15% faster at B = 32,
// H = 128), then a step is one gemm of h [B, H] by it into a scratch block reused by
// every step, and one pointwise pass that adds the step's input gates (x W_ih^T,
// computed for all steps by one product before the call) and the biases (added here:
// a bias in that product would be a broadcast copy of all T * B rows first) and
// writes h straight into its row of the output sequence; that row is the next step's
// h. The cell formulas are kernels/rnn_cell_math.h's, as in lstm_cell_fused /
// gru_cell_fused, with the additions in the same order, so both paths agree.
#include <algorithm>
#include <memory>
#include <vector>

#include "cpu/blas.h"
#include "cpu/nn_common.h"
#include "cpu/parallel.h"
#include "cpu/rnn_activations.h"
#include "dispatch/args/nn.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "ember/ops/factories.h"

namespace ember::cpu {
namespace {

// Rows [b0, b1) of one LSTM step: gates = (gx + bias) + gh (each row [i | f | g | o],
// H wide); c is updated in place, h written.
template <typename T>
EMBER_CLONES void lstm_layer_rows(const T* gx, const T* gh, const T* bias, T* c, T* h, int64_t b0, int64_t b1,
                                  int64_t H) {
  using Act = ActivationsFor<T>;
  for (int64_t b = b0; b < b1; ++b) {
    const T* x = gx + b * 4 * H;
    const T* y = gh + b * 4 * H;
    T* cr = c + b * H;
    T* hr = h + b * H;
#pragma omp simd
    for (int64_t j = 0; j < H; ++j) {
      const LstmCellState<T> s = lstm_cell_point<Act>(
          (x[j] + bias[j]) + y[j], (x[H + j] + bias[H + j]) + y[H + j],
          (x[2 * H + j] + bias[2 * H + j]) + y[2 * H + j], (x[3 * H + j] + bias[3 * H + j]) + y[3 * H + j], cr[j]);
      hr[j] = s.h;
      cr[j] = s.c;
    }
  }
}

// lstm_layer_rows for lstm_layer: the same formulas (kernels/rnn_cell_math.h's
// lstm_cell_point, same order of operations), and the activated gates (i, f, g, o) go
// to act and the new cell state to c (c_prev is the previous step's row, not updated in
// place), which the backward reads.
template <typename T>
EMBER_CLONES void lstm_layer_train_rows(const T* gx, const T* gh, const T* bias, const T* c_prev, T* act, T* c, T* h,
                                        int64_t b0, int64_t b1, int64_t H) {
  using Act = ActivationsFor<T>;
  for (int64_t b = b0; b < b1; ++b) {
    const T* x = gx + b * 4 * H;
    const T* y = gh + b * 4 * H;
    const T* cp = c_prev + b * H;
    T* a = act + b * 4 * H;
    T* cr = c + b * H;
    T* hr = h + b * H;
#pragma omp simd
    for (int64_t j = 0; j < H; ++j) {
      const T i = Act::sigmoid((x[j] + bias[j]) + y[j]);
      const T f = Act::sigmoid((x[H + j] + bias[H + j]) + y[H + j]);
      const T g = Act::tanh((x[2 * H + j] + bias[2 * H + j]) + y[2 * H + j]);
      const T o = Act::sigmoid((x[3 * H + j] + bias[3 * H + j]) + y[3 * H + j]);
      const T cn = f * cp[j] + i * g;
      a[j] = i;
      a[H + j] = f;
      a[2 * H + j] = g;
      a[3 * H + j] = o;
      cr[j] = cn;
      hr[j] = o * Act::tanh(cn);
    }
  }
}

// Rows [b0, b1) of one GRU step: gx = x W_ih^T and gh = h W_hh^T, rows [r | z | n], with
// b_ih and b_hh added here (the n gate needs r * (W_hn h + b_hn) apart from W_in x + b_in).
template <typename T>
EMBER_CLONES void gru_layer_rows(const T* gx, const T* gh, const T* b_ih, const T* b_hh, const T* h_prev, T* h,
                                 int64_t b0, int64_t b1, int64_t H) {
  using Act = ActivationsFor<T>;
  for (int64_t b = b0; b < b1; ++b) {
    const T* x = gx + b * 3 * H;
    const T* y = gh + b * 3 * H;
    const T* hp = h_prev + b * H;
    T* hr = h + b * H;
#pragma omp simd
    for (int64_t j = 0; j < H; ++j)
      hr[j] = gru_cell_point<Act>(x[j] + b_ih[j], x[H + j] + b_ih[H + j], x[2 * H + j] + b_ih[2 * H + j],
                                  y[j] + b_hh[j], y[H + j] + b_hh[H + j], y[2 * H + j] + b_hh[2 * H + j], hp[j]);
  }
}

// gru_layer_rows for gru_layer: the same formulas in the same order (gru_cell_point), and
// each step's r, z, n and W_hn h + b_hn go to ws (rows [r | z | n | hn]) for the backward.
template <typename T>
EMBER_CLONES void gru_layer_train_rows(const T* gx, const T* gh, const T* b_ih, const T* b_hh, const T* h_prev,
                                       T* ws, T* h, int64_t b0, int64_t b1, int64_t H) {
  using Act = ActivationsFor<T>;
  for (int64_t b = b0; b < b1; ++b) {
    const T* x = gx + b * 3 * H;
    const T* y = gh + b * 3 * H;
    const T* hp = h_prev + b * H;
    T* w = ws + b * 4 * H;
    T* hr = h + b * H;
#pragma omp simd
    for (int64_t j = 0; j < H; ++j) {
      const T r = Act::sigmoid((x[j] + b_ih[j]) + (y[j] + b_hh[j]));
      const T z = Act::sigmoid((x[H + j] + b_ih[H + j]) + (y[H + j] + b_hh[H + j]));
      const T hn = y[2 * H + j] + b_hh[2 * H + j];
      const T n = Act::tanh((x[2 * H + j] + b_ih[2 * H + j]) + r * hn);
      w[j] = r;
      w[H + j] = z;
      w[2 * H + j] = n;
      w[3 * H + j] = hn;
      hr[j] = n + z * (hp[j] - n);
    }
  }
}

// Rows per task: about kGrainSize cells' worth (a step's pointwise pass is ~10 flops
// and 5 transcendental calls per cell).
int64_t row_grain(int64_t H) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(H * 8, 1)); }

template <typename T>
const T* ptr(const Tensor& t) { return static_cast<const T*>(t.data_ptr()); }
template <typename T>
T* mut(const Tensor& t) { return static_cast<T*>(t.data_ptr()); }

// A bias as G*H values, zeros when undefined (adding 0 is exact: one loop, no branch).
template <typename T>
std::vector<T> bias_values(const Tensor& b, int64_t n) {
  std::vector<T> v(static_cast<size_t>(n), T(0));
  if (b.defined()) std::copy(ptr<T>(b), ptr<T>(b) + n, v.begin());
  return v;
}

// out [cols, rows] = in [rows, cols]^T, in tiles that stay in L1 (a plain loop with the
// stores 2 KB apart ran at 2 ns per element, as long as 20 steps of the recurrence).
template <typename T>
void transpose(const T* __restrict in, T* __restrict out, int64_t rows, int64_t cols) {
  constexpr int64_t kTile = 16;
  for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
    const int64_t r1 = std::min(rows, r0 + kTile);
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t c1 = std::min(cols, c0 + kTile);
      for (int64_t c = c0; c < c1; ++c) {
        T* dst = out + c * rows;
        for (int64_t r = r0; r < r1; ++r) dst[r] = in[r * cols + c];
      }
    }
  }
}

// The recurrence shared by both cells: W_hh [G, H] transposed into wt [H, G] in cache
// blocks, then for each step t (backwards when reverse) gh = h_prev @ wt into the scratch
// block and cell(t, t's gx, gh, h_prev, h_t) writes h_t into output[t]. Returns the
// last h written (h0 when there are no steps).
template <typename T, typename Cell>
const T* recur(const Tensor& gx, const Tensor& w_hh, const Tensor& h0, const Tensor& output, bool reverse,
               const Cell& cell) {
  const int64_t steps = gx.size(0), B = gx.size(1), G = gx.size(2), H = w_hh.size(1);
  std::unique_ptr<T[]> wt(new T[static_cast<size_t>(std::max<int64_t>(G * H, 1))]);
  transpose(ptr<T>(w_hh), wt.get(), G, H);
  std::unique_ptr<T[]> gh(new T[static_cast<size_t>(std::max<int64_t>(B * G, 1))]);
  const T* h_prev = ptr<T>(h0);
  for (int64_t i = 0; i < steps; ++i) {
    const int64_t t = reverse ? steps - 1 - i : i;
    T* h = mut<T>(output) + t * B * H;
    blas::gemm(false, false, B, G, H, T(1), h_prev, H, wt.get(), G, T(0), gh.get(), G);
    cell(t, ptr<T>(gx) + t * B * G, gh.get(), h_prev, h);
    h_prev = h;
  }
  return h_prev;
}

// Inputs (contiguous, one dtype: float32 or float64): gx [T, B, 4H], w_hh [4H, H], h0 and
// c0 [B, H], bias [4H] or undefined; attr reverse. Outputs: output [T, B, H], h_n, c_n [B, H].
void lstm_layer_inference_kernel(OpCall& call) {
  const Tensor &gx = call.in(0), &w_hh = call.in(1), &h0 = call.in(2), &c0 = call.in(3), &bias = call.in(4);
  const bool reverse = LstmLayerInferenceArgs::from(call).reverse;
  const int64_t B = h0.size(0), H = h0.size(1);
  const TensorOptions opts(gx.dtype());
  Tensor output = empty({gx.size(0), B, H}, opts);
  Tensor h_n = empty({B, H}, opts);
  Tensor c_n = c0.clone();  // the cell state, updated in place step by step
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const std::vector<T> b = bias_values<T>(bias, 4 * H);
    const T* last = recur<T>(gx, w_hh, h0, output, reverse, [&](int64_t, const T* x, const T* g, const T*, T* h) {
      parallel_for(0, B, row_grain(H), [&](int64_t b0, int64_t b1) {
        lstm_layer_rows(x, g, b.data(), mut<T>(c_n), h, b0, b1, H);
      });
    });
    std::copy(last, last + B * H, mut<T>(h_n));
  };
  if (gx.dtype() == kFloat64) run(0.0);
  else run(0.0f);
  call.outputs.push_back(output);
  call.outputs.push_back(h_n);
  call.outputs.push_back(c_n);
}

// Inputs as lstm_layer_inference's. Outputs: output [T, B, H], h_n, c_n [B, H], and for
// the backward gates [T, B, 4H] (activated) and cells [T, B, H] (c after each step).
void lstm_layer_kernel(OpCall& call) {
  const Tensor &gx = call.in(0), &w_hh = call.in(1), &h0 = call.in(2), &c0 = call.in(3), &bias = call.in(4);
  const bool reverse = LstmLayerArgs::from(call).reverse;
  const int64_t steps = gx.size(0), B = h0.size(0), H = h0.size(1);
  const TensorOptions opts(gx.dtype());
  Tensor output = empty({steps, B, H}, opts);
  Tensor gates = empty({steps, B, 4 * H}, opts);
  Tensor cells = empty({steps, B, H}, opts);
  Tensor h_n = empty({B, H}, opts);
  Tensor c_n = empty({B, H}, opts);
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const std::vector<T> b = bias_values<T>(bias, 4 * H);
    const T* c_last = ptr<T>(c0);
    const T* last = recur<T>(gx, w_hh, h0, output, reverse, [&](int64_t t, const T* x, const T* g, const T*, T* h) {
      T* c = mut<T>(cells) + t * B * H;
      T* act = mut<T>(gates) + t * B * 4 * H;
      parallel_for(0, B, row_grain(H), [&](int64_t b0, int64_t b1) {
        lstm_layer_train_rows(x, g, b.data(), c_last, act, c, h, b0, b1, H);
      });
      c_last = c;
    });
    std::copy(last, last + B * H, mut<T>(h_n));
    std::copy(c_last, c_last + B * H, mut<T>(c_n));
  };
  if (gx.dtype() == kFloat64) run(0.0);
  else run(0.0f);
  for (Tensor* t : {&output, &h_n, &c_n, &gates, &cells}) call.outputs.push_back(*t);
}

// Inputs: gx [T, B, 3H], w_hh [3H, H], h0 [B, H], b_ih and b_hh [3H] or undefined; attr
// reverse. Outputs: output [T, B, H], h_n [B, H].
void gru_layer_inference_kernel(OpCall& call) {
  const Tensor &gx = call.in(0), &w_hh = call.in(1), &h0 = call.in(2), &b_ih = call.in(3), &b_hh = call.in(4);
  const bool reverse = GruLayerInferenceArgs::from(call).reverse;
  const int64_t B = h0.size(0), H = h0.size(1);
  const TensorOptions opts(gx.dtype());
  Tensor output = empty({gx.size(0), B, H}, opts);
  Tensor h_n = empty({B, H}, opts);
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const std::vector<T> bi = bias_values<T>(b_ih, 3 * H), bh = bias_values<T>(b_hh, 3 * H);
    const T* last = recur<T>(gx, w_hh, h0, output, reverse, [&](int64_t, const T* x, const T* g, const T* hp, T* h) {
      parallel_for(0, B, row_grain(H), [&](int64_t b0, int64_t b1) {
        gru_layer_rows(x, g, bi.data(), bh.data(), hp, h, b0, b1, H);
      });
    });
    std::copy(last, last + B * H, mut<T>(h_n));
  };
  if (gx.dtype() == kFloat64) run(0.0);
  else run(0.0f);
  call.outputs.push_back(output);
  call.outputs.push_back(h_n);
}

// Inputs as gru_layer_inference's. Outputs: output [T, B, H], h_n [B, H] and the
// workspace [T, B, 4H] (r, z, n, W_hn h + b_hn of each step) for the backward.
void gru_layer_kernel(OpCall& call) {
  const Tensor &gx = call.in(0), &w_hh = call.in(1), &h0 = call.in(2), &b_ih = call.in(3), &b_hh = call.in(4);
  const bool reverse = GruLayerArgs::from(call).reverse;
  const int64_t steps = gx.size(0), B = h0.size(0), H = h0.size(1);
  const TensorOptions opts(gx.dtype());
  Tensor output = empty({steps, B, H}, opts);
  Tensor ws = empty({steps, B, 4 * H}, opts);
  Tensor h_n = empty({B, H}, opts);
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const std::vector<T> bi = bias_values<T>(b_ih, 3 * H), bh = bias_values<T>(b_hh, 3 * H);
    const T* last = recur<T>(gx, w_hh, h0, output, reverse, [&](int64_t t, const T* x, const T* g, const T* hp, T* h) {
      T* w = mut<T>(ws) + t * B * 4 * H;
      parallel_for(0, B, row_grain(H), [&](int64_t b0, int64_t b1) {
        gru_layer_train_rows(x, g, bi.data(), bh.data(), hp, w, h, b0, b1, H);
      });
    });
    std::copy(last, last + B * H, mut<T>(h_n));
  };
  if (gx.dtype() == kFloat64) run(0.0);
  else run(0.0f);
  for (Tensor* t : {&output, &h_n, &ws}) call.outputs.push_back(*t);
}

EMBER_REGISTER_KERNEL(lstm_layer_inference, CPU, lstm_layer_inference_kernel);
EMBER_REGISTER_KERNEL(gru_layer_inference, CPU, gru_layer_inference_kernel);
EMBER_REGISTER_KERNEL(lstm_layer, CPU, lstm_layer_kernel);
EMBER_REGISTER_KERNEL(gru_layer, CPU, gru_layer_kernel);

}  // namespace
}  // namespace ember::cpu
