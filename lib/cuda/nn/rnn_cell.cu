// lstm_cell_fused, gru_cell_fused and their backward on CUDA (lib/ops/rnn_fused.cpp), with the CPU
// kernels' formulas (lib/kernels/rnn_cell_math.h): one thread per cell of [B, H], grid-stride,
// int64 indices. Operands arrive contiguous; LSTM gate rows are [i | f | g | o], GRU
// ones [r | z | n].
#include "kernels/rnn_cell_math.h"
#include "kernels/dtype_dispatch.h"
#include "cuda/launch.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/factories.h"

namespace ember::cuda {
namespace {

template <typename T>
__global__ void lstm_cell_kernel(const T* gates, const T* c_prev, T* h, T* c, int64_t n, int64_t H) {
  using acc_t = opmath_t<T>;
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    const int64_t b = k / H, j = k - b * H;
    const T* g = gates + b * 4 * H;
    const LstmCellState<acc_t> s = lstm_cell_point<StdActivations>(
        acc_t(g[j]), acc_t(g[H + j]), acc_t(g[2 * H + j]), acc_t(g[3 * H + j]), acc_t(c_prev[k]));
    h[k] = convert<T>(s.h);
    c[k] = convert<T>(s.c);
  }
}

template <typename T>
__global__ void lstm_cell_backward_kernel(const T* dh, const T* dc, const T* gates, const T* c_prev,
                                          const T* c, T* dgates, T* dc_prev, int64_t n, int64_t H) {
  using acc_t = opmath_t<T>;
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    const int64_t b = k / H, j = k - b * H;
    const T* g = gates + b * 4 * H;
    T* dg = dgates + b * 4 * H;
    const LstmCellGrads<acc_t> r = lstm_cell_point_backward<StdActivations>(
        acc_t(g[j]), acc_t(g[H + j]), acc_t(g[2 * H + j]), acc_t(g[3 * H + j]), acc_t(c_prev[k]),
        acc_t(c[k]), acc_t(dh[k]), acc_t(dc[k]));
    dg[j] = convert<T>(r.di);
    dg[H + j] = convert<T>(r.df);
    dg[2 * H + j] = convert<T>(r.dg);
    dg[3 * H + j] = convert<T>(r.d_o);
    dc_prev[k] = convert<T>(r.dc_prev);
  }
}

template <typename T>
__global__ void gru_cell_kernel(const T* gx, const T* gh, const T* h, T* h_new, int64_t n, int64_t H) {
  using acc_t = opmath_t<T>;
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    const int64_t b = k / H, j = k - b * H;
    const T* x = gx + b * 3 * H;
    const T* y = gh + b * 3 * H;
    h_new[k] = convert<T>(gru_cell_point<StdActivations>(acc_t(x[j]), acc_t(x[H + j]), acc_t(x[2 * H + j]),
                                                         acc_t(y[j]), acc_t(y[H + j]), acc_t(y[2 * H + j]),
                                                         acc_t(h[k])));
  }
}

template <typename T>
__global__ void gru_cell_backward_kernel(const T* dh_new, const T* gx, const T* gh, const T* h, T* dgx,
                                         T* dgh, T* dh, int64_t n, int64_t H) {
  using acc_t = opmath_t<T>;
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    const int64_t b = k / H, j = k - b * H;
    const T* x = gx + b * 3 * H;
    const T* y = gh + b * 3 * H;
    const GruCellGrads<acc_t> g = gru_cell_point_backward<StdActivations>(
        acc_t(x[j]), acc_t(x[H + j]), acc_t(x[2 * H + j]), acc_t(y[j]), acc_t(y[H + j]),
        acc_t(y[2 * H + j]), acc_t(h[k]), acc_t(dh_new[k]));
    T* dx = dgx + b * 3 * H;
    T* dy = dgh + b * 3 * H;
    dx[j] = dy[j] = convert<T>(g.dr);
    dx[H + j] = dy[H + j] = convert<T>(g.dz);
    dx[2 * H + j] = convert<T>(g.dxn);
    dy[2 * H + j] = convert<T>(g.dhn);
    dh[k] = convert<T>(g.dh);
  }
}

template <typename T>
const T* in(const Tensor& t) { return static_cast<const T*>(t.data_ptr()); }
template <typename T>
T* out(Tensor& t) { return static_cast<T*>(t.data_ptr()); }

void lstm_cell_fused_kernel(OpCall& call) {
  const Tensor& gates = call.in(0);
  const Tensor& c_prev = call.in(1);
  const TensorOptions options = TensorOptions(c_prev.dtype()).device(c_prev.device());
  Tensor h = empty(c_prev.sizes(), options), c = empty(c_prev.sizes(), options);
  const int64_t n = c_prev.numel(), H = c_prev.size(1);
  if (n > 0) {
    LaunchContext ctx(c_prev);
    EMBER_DISPATCH_FLOATING(gates.dtype(), "lstm_cell_fused", [&] {
      lstm_cell_kernel<scalar_t><<<blocks_for(n), kBlockThreads, 0, ctx.stream>>>(
          in<scalar_t>(gates), in<scalar_t>(c_prev), out<scalar_t>(h), out<scalar_t>(c), n, H);
      EMBER_CUDA_CHECK_LAUNCH();
    });
  }
  call.outputs.push_back(h);
  call.outputs.push_back(c);
}

void lstm_cell_fused_backward_kernel(OpCall& call) {
  const Tensor& gates = call.in(2);
  const Tensor& c_prev = call.in(3);
  Tensor dgates = empty(gates.sizes(), TensorOptions(gates.dtype()).device(gates.device()));
  Tensor dc_prev = empty(c_prev.sizes(), TensorOptions(c_prev.dtype()).device(c_prev.device()));
  const int64_t n = c_prev.numel(), H = c_prev.size(1);
  if (n > 0) {
    LaunchContext ctx(c_prev);
    EMBER_DISPATCH_FLOATING(gates.dtype(), "lstm_cell_fused_backward", [&] {
      lstm_cell_backward_kernel<scalar_t><<<blocks_for(n), kBlockThreads, 0, ctx.stream>>>(
          in<scalar_t>(call.in(0)), in<scalar_t>(call.in(1)), in<scalar_t>(gates), in<scalar_t>(c_prev),
          in<scalar_t>(call.in(4)), out<scalar_t>(dgates), out<scalar_t>(dc_prev), n, H);
      EMBER_CUDA_CHECK_LAUNCH();
    });
  }
  call.outputs.push_back(dgates);
  call.outputs.push_back(dc_prev);
}

void gru_cell_fused_kernel(OpCall& call) {
  const Tensor& h = call.in(2);
  Tensor h_new = empty(h.sizes(), TensorOptions(h.dtype()).device(h.device()));
  const int64_t n = h.numel(), H = h.size(1);
  if (n > 0) {
    LaunchContext ctx(h);
    EMBER_DISPATCH_FLOATING(h.dtype(), "gru_cell_fused", [&] {
      gru_cell_kernel<scalar_t><<<blocks_for(n), kBlockThreads, 0, ctx.stream>>>(
          in<scalar_t>(call.in(0)), in<scalar_t>(call.in(1)), in<scalar_t>(h), out<scalar_t>(h_new), n, H);
      EMBER_CUDA_CHECK_LAUNCH();
    });
  }
  call.outputs.push_back(h_new);
}

void gru_cell_fused_backward_kernel(OpCall& call) {
  const Tensor& gx = call.in(1);
  const Tensor& h = call.in(3);
  const TensorOptions options = TensorOptions(h.dtype()).device(h.device());
  Tensor dgx = empty(gx.sizes(), options), dgh = empty(gx.sizes(), options), dh = empty(h.sizes(), options);
  const int64_t n = h.numel(), H = h.size(1);
  if (n > 0) {
    LaunchContext ctx(h);
    EMBER_DISPATCH_FLOATING(h.dtype(), "gru_cell_fused_backward", [&] {
      gru_cell_backward_kernel<scalar_t><<<blocks_for(n), kBlockThreads, 0, ctx.stream>>>(
          in<scalar_t>(call.in(0)), in<scalar_t>(gx), in<scalar_t>(call.in(2)), in<scalar_t>(h),
          out<scalar_t>(dgx), out<scalar_t>(dgh), out<scalar_t>(dh), n, H);
      EMBER_CUDA_CHECK_LAUNCH();
    });
  }
  call.outputs.push_back(dgx);
  call.outputs.push_back(dgh);
  call.outputs.push_back(dh);
}

EMBER_REGISTER_KERNEL(lstm_cell_fused, CUDA, lstm_cell_fused_kernel);
EMBER_REGISTER_KERNEL(gru_cell_fused, CUDA, gru_cell_fused_kernel);
EMBER_REGISTER_KERNEL(gru_cell_fused_backward, CUDA, gru_cell_fused_backward_kernel);
EMBER_REGISTER_KERNEL(lstm_cell_fused_backward, CUDA, lstm_cell_fused_backward_kernel);

}  // namespace
}  // namespace ember::cuda
