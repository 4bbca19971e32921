// lstm_cell_fused and its backward on CUDA (lib/ops/rnn_fused.cpp), with the CPU
// kernels' formulas (lib/core/lstm_math.h): one thread per cell of [B, H], grid-stride,
// int64 indices. Operands arrive contiguous; gates rows are [i | f | g | o].
#include "core/lstm_math.h"
#include "cpu/dtype_dispatch.h"
#include "cuda/launch.h"
#include "dispatch/dispatcher.h"
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
    acc_t hv, cv;
    lstm_cell_point<StdActivations>(acc_t(g[j]), acc_t(g[H + j]), acc_t(g[2 * H + j]),
                                    acc_t(g[3 * H + j]), acc_t(c_prev[k]), hv, cv);
    h[k] = convert<T>(hv);
    c[k] = convert<T>(cv);
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

EMBER_REGISTER_KERNEL(lstm_cell_fused, CUDA, lstm_cell_fused_kernel);
EMBER_REGISTER_KERNEL(lstm_cell_fused_backward, CUDA, lstm_cell_fused_backward_kernel);

}  // namespace
}  // namespace ember::cuda
