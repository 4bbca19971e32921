// lstm_cell_fused, gru_cell_fused and their backward on the CPU (lib/ops/rnn_fused.cpp):
// one pass over the [B, H] cells, with the formulas of lib/kernels/rnn_cell_math.h. Operands arrive
// contiguous. float32 uses the vectorizable sigmoid and tanh (cpu/vec_math.h), the
// other dtypes compute in opmath with the standard ones.
#include "kernels/rnn_cell_math.h"
#include "kernels/dtype_dispatch.h"
#include "cpu/nn_common.h"
#include "cpu/parallel.h"
#include "cpu/rnn_activations.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/factories.h"

namespace ember::cpu {
namespace {

// Rows [b0, b1) of the batch; gates rows are [i | f | g | o], each H wide.
template <typename T>
EMBER_CLONES void lstm_rows(const T* gates, const T* c_prev, T* h, T* c, int64_t b0, int64_t b1,
                            int64_t H) {
  using acc_t = opmath_t<T>;
  using Act = ActivationsFor<acc_t>;
  for (int64_t b = b0; b < b1; ++b) {
    const T *gi = gates + b * 4 * H, *gf = gi + H, *gg = gf + H, *go = gg + H;
    const T* cp = c_prev + b * H;
    T *hp = h + b * H, *op = c + b * H;
#pragma omp simd
    for (int64_t j = 0; j < H; ++j) {
      const LstmCellState<acc_t> s =
          lstm_cell_point<Act>(acc_t(gi[j]), acc_t(gf[j]), acc_t(gg[j]), acc_t(go[j]), acc_t(cp[j]));
      hp[j] = convert<T>(s.h);
      op[j] = convert<T>(s.c);
    }
  }
}

template <typename T>
EMBER_CLONES void lstm_backward_rows(const T* dh, const T* dc, const T* gates, const T* c_prev,
                                     const T* c, T* dgates, T* dc_prev, int64_t b0, int64_t b1,
                                     int64_t H) {
  using acc_t = opmath_t<T>;
  using Act = ActivationsFor<acc_t>;
  for (int64_t b = b0; b < b1; ++b) {
    const T* g = gates + b * 4 * H;
    T* dg = dgates + b * 4 * H;
    const int64_t row = b * H;
#pragma omp simd
    for (int64_t j = 0; j < H; ++j) {
      const LstmCellGrads<acc_t> r = lstm_cell_point_backward<Act>(
          acc_t(g[j]), acc_t(g[H + j]), acc_t(g[2 * H + j]), acc_t(g[3 * H + j]),
          acc_t(c_prev[row + j]), acc_t(c[row + j]), acc_t(dh[row + j]), acc_t(dc[row + j]));
      dg[j] = convert<T>(r.di);
      dg[H + j] = convert<T>(r.df);
      dg[2 * H + j] = convert<T>(r.dg);
      dg[3 * H + j] = convert<T>(r.d_o);
      dc_prev[row + j] = convert<T>(r.dc_prev);
    }
  }
}

// GRU rows: gx and gh rows are [r | z | n], each H wide.
template <typename T>
EMBER_CLONES void gru_rows(const T* gx, const T* gh, const T* h, T* h_new, int64_t b0, int64_t b1,
                           int64_t H) {
  using acc_t = opmath_t<T>;
  using Act = ActivationsFor<acc_t>;
  for (int64_t b = b0; b < b1; ++b) {
    const T* x = gx + b * 3 * H;
    const T* y = gh + b * 3 * H;
    const int64_t row = b * H;
#pragma omp simd
    for (int64_t j = 0; j < H; ++j)
      h_new[row + j] = convert<T>(gru_cell_point<Act>(acc_t(x[j]), acc_t(x[H + j]), acc_t(x[2 * H + j]),
                                                      acc_t(y[j]), acc_t(y[H + j]), acc_t(y[2 * H + j]),
                                                      acc_t(h[row + j])));
  }
}

template <typename T>
EMBER_CLONES void gru_backward_rows(const T* dh_new, const T* gx, const T* gh, const T* h, T* dgx,
                                    T* dgh, T* dh, int64_t b0, int64_t b1, int64_t H) {
  using acc_t = opmath_t<T>;
  using Act = ActivationsFor<acc_t>;
  for (int64_t b = b0; b < b1; ++b) {
    const T* x = gx + b * 3 * H;
    const T* y = gh + b * 3 * H;
    T* dx = dgx + b * 3 * H;
    T* dy = dgh + b * 3 * H;
    const int64_t row = b * H;
#pragma omp simd
    for (int64_t j = 0; j < H; ++j) {
      const GruCellGrads<acc_t> g = gru_cell_point_backward<Act>(
          acc_t(x[j]), acc_t(x[H + j]), acc_t(x[2 * H + j]), acc_t(y[j]), acc_t(y[H + j]),
          acc_t(y[2 * H + j]), acc_t(h[row + j]), acc_t(dh_new[row + j]));
      dx[j] = dy[j] = convert<T>(g.dr);
      dx[H + j] = dy[H + j] = convert<T>(g.dz);
      dx[2 * H + j] = convert<T>(g.dxn);
      dy[2 * H + j] = convert<T>(g.dhn);
      dh[row + j] = convert<T>(g.dh);
    }
  }
}

// Rows per task: about kGrainSize cells' worth.
int64_t row_grain(int64_t H) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(H * 8, 1)); }

void lstm_cell_fused_kernel(OpCall& call) {
  const Tensor& gates = call.in(0);
  const Tensor& c_prev = call.in(1);
  const int64_t B = c_prev.size(0), H = c_prev.size(1);
  Tensor h = empty(c_prev.sizes(), TensorOptions(c_prev.dtype()));
  Tensor c = empty(c_prev.sizes(), TensorOptions(c_prev.dtype()));
  EMBER_DISPATCH_FLOATING(gates.dtype(), "lstm_cell_fused", [&] {
    const scalar_t* gp = static_cast<const scalar_t*>(gates.data_ptr());
    const scalar_t* cp = static_cast<const scalar_t*>(c_prev.data_ptr());
    scalar_t* hp = static_cast<scalar_t*>(h.data_ptr());
    scalar_t* op = static_cast<scalar_t*>(c.data_ptr());
    parallel_for(0, B, row_grain(H), [&](int64_t b0, int64_t b1) { lstm_rows(gp, cp, hp, op, b0, b1, H); });
  });
  call.outputs.push_back(h);
  call.outputs.push_back(c);
}

void lstm_cell_fused_backward_kernel(OpCall& call) {
  const Tensor& dh = call.in(0);
  const Tensor& dc = call.in(1);
  const Tensor& gates = call.in(2);
  const Tensor& c_prev = call.in(3);
  const Tensor& c = call.in(4);
  const int64_t B = c_prev.size(0), H = c_prev.size(1);
  Tensor dgates = empty(gates.sizes(), TensorOptions(gates.dtype()));
  Tensor dc_prev = empty(c_prev.sizes(), TensorOptions(c_prev.dtype()));
  EMBER_DISPATCH_FLOATING(gates.dtype(), "lstm_cell_fused_backward", [&] {
    auto in = [](const Tensor& t) { return static_cast<const scalar_t*>(t.data_ptr()); };
    scalar_t* dgp = static_cast<scalar_t*>(dgates.data_ptr());
    scalar_t* dcp = static_cast<scalar_t*>(dc_prev.data_ptr());
    parallel_for(0, B, row_grain(H), [&](int64_t b0, int64_t b1) {
      lstm_backward_rows(in(dh), in(dc), in(gates), in(c_prev), in(c), dgp, dcp, b0, b1, H);
    });
  });
  call.outputs.push_back(dgates);
  call.outputs.push_back(dc_prev);
}

void gru_cell_fused_kernel(OpCall& call) {
  const Tensor& h = call.in(2);
  const int64_t B = h.size(0), H = h.size(1);
  Tensor h_new = empty(h.sizes(), TensorOptions(h.dtype()));
  EMBER_DISPATCH_FLOATING(h.dtype(), "gru_cell_fused", [&] {
    auto in = [&](size_t i) { return static_cast<const scalar_t*>(call.in(i).data_ptr()); };
    scalar_t* hp = static_cast<scalar_t*>(h_new.data_ptr());
    parallel_for(0, B, row_grain(H), [&](int64_t b0, int64_t b1) { gru_rows(in(0), in(1), in(2), hp, b0, b1, H); });
  });
  call.outputs.push_back(h_new);
}

void gru_cell_fused_backward_kernel(OpCall& call) {
  const Tensor& gx = call.in(1);
  const Tensor& h = call.in(3);
  const int64_t B = h.size(0), H = h.size(1);
  Tensor dgx = empty(gx.sizes(), TensorOptions(gx.dtype()));
  Tensor dgh = empty(gx.sizes(), TensorOptions(gx.dtype()));
  Tensor dh = empty(h.sizes(), TensorOptions(h.dtype()));
  EMBER_DISPATCH_FLOATING(h.dtype(), "gru_cell_fused_backward", [&] {
    auto in = [&](size_t i) { return static_cast<const scalar_t*>(call.in(i).data_ptr()); };
    auto out = [](Tensor& t) { return static_cast<scalar_t*>(t.data_ptr()); };
    parallel_for(0, B, row_grain(H), [&](int64_t b0, int64_t b1) {
      gru_backward_rows(in(0), in(1), in(2), in(3), out(dgx), out(dgh), out(dh), b0, b1, H);
    });
  });
  call.outputs.push_back(dgx);
  call.outputs.push_back(dgh);
  call.outputs.push_back(dh);
}

EMBER_REGISTER_KERNEL(lstm_cell_fused, CPU, lstm_cell_fused_kernel);
EMBER_REGISTER_KERNEL(gru_cell_fused, CPU, gru_cell_fused_kernel);
EMBER_REGISTER_KERNEL(gru_cell_fused_backward, CPU, gru_cell_fused_backward_kernel);
EMBER_REGISTER_KERNEL(lstm_cell_fused_backward, CPU, lstm_cell_fused_backward_kernel);

}  // namespace
}  // namespace ember::cpu
