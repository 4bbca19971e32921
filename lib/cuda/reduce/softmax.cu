// CUDA kernels of softmax and log_softmax along one dim, numerically stable (the
// row's max is subtracted before exp), float16/bfloat16 computed in float, float64
// in double. The input (cast to the output dtype, made contiguous) is seen as
// [outer, D, inner]:
//   inner == 1, D <= 1024  one warp per row (8 rows per block): max, sum of exp,
//                          then the output, each a strided pass over the row
//                          (re-reads hit the cache) and a warp-shuffle reduction.
//   inner == 1, D > 1024   one block per row, the same three passes with
//                          block_reduce.
//   inner > 1              one thread per column (o, i), the same three passes
//                          walking D with stride inner (neighbouring threads read
//                          neighbouring columns, so loads coalesce). A few
//                          columns with a very long D (softmax over dim 0 of
//                          [10^5, 8]) leave most of the device idle: correct,
//                          not fast.
// As on the CPU, a non-finite max makes the row's values NaN through the
// arithmetic itself (exp(x - inf)), and NaN propagates through the max.

#include "kernels/reduce_meta.h"
#include "cuda/block_reduce.cuh"
#include "cuda/reduce/reduce_kernel.cuh"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"

namespace ember::cuda::reduce {
namespace {


template <bool Log, typename A, typename T>
// log_softmax is (v - m) - log(sum), as torch: v - (m + log(sum)) rounds m + log(sum)
// first and loses the small values' digits when m is large.
__device__ inline T softmax_value(A v, A m, A inv_sum, A log_sum) {
  return convert<T>(Log ? (v - m) - log_sum : exp_acc(v - m) * inv_sum);
}

constexpr int kWarpRows = 8;  // rows (warps) per block of the warp kernel
constexpr int kWarpRowMax = 1024;
constexpr int kBlockRowThreads = 512;

template <bool Log, typename T>
__global__ void softmax_warp_kernel(const T* x, T* out, int64_t rows, int64_t D) {
  using A = opmath_t<T>;
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  // The loop bound is the same for the 32 lanes of a warp (shuffles need all of them).
  for (int64_t row = int64_t(blockIdx.x) * kWarpRows + warp; row < rows; row += int64_t(gridDim.x) * kWarpRows) {
    const T* src = x + row * D;
    T* dst = out + row * D;
    A m = A(-INFINITY);
    for (int64_t d = lane; d < D; d += kWarpSize) m = MaxOp<A>{}(m, static_cast<A>(src[d]));
    m = warp_reduce(m, MaxOp<A>{});
    A s = A(0);
    for (int64_t d = lane; d < D; d += kWarpSize) s += exp_acc(static_cast<A>(src[d]) - m);
    s = warp_reduce_sum(s);
    const A inv = A(1) / s, lse = log(s);
    for (int64_t d = lane; d < D; d += kWarpSize) dst[d] = softmax_value<Log, A, T>(static_cast<A>(src[d]), m, inv, lse);
  }
}

template <bool Log, typename T>
__global__ void softmax_block_kernel(const T* x, T* out, int64_t rows, int64_t D) {
  using A = opmath_t<T>;
  __shared__ A shared[kMaxWarps];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {  // same trip count for the block
    const T* src = x + row * D;
    T* dst = out + row * D;
    A m = A(-INFINITY);
    for (int64_t d = threadIdx.x; d < D; d += blockDim.x) m = MaxOp<A>{}(m, static_cast<A>(src[d]));
    m = block_reduce(m, MaxOp<A>{}, shared);
    A s = A(0);
    for (int64_t d = threadIdx.x; d < D; d += blockDim.x) s += exp_acc(static_cast<A>(src[d]) - m);
    s = block_reduce(s, SumOp<A>{}, shared);
    const A inv = A(1) / s, lse = log(s);
    for (int64_t d = threadIdx.x; d < D; d += blockDim.x)
      dst[d] = softmax_value<Log, A, T>(static_cast<A>(src[d]), m, inv, lse);
    __syncthreads();  // block_reduce's next use of `shared` (also synchronized inside)
  }
}

template <bool Log, typename T>
__global__ void softmax_columns_kernel(const T* x, T* out, int64_t outer, int64_t D, int64_t inner) {
  using A = opmath_t<T>;
  const int64_t columns = outer * inner;
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < columns;
       c += int64_t(gridDim.x) * blockDim.x) {
    const int64_t o = c / inner, i = c - o * inner;
    const T* src = x + o * D * inner + i;
    T* dst = out + o * D * inner + i;
    A m = A(-INFINITY);
    for (int64_t d = 0; d < D; ++d) m = MaxOp<A>{}(m, static_cast<A>(src[d * inner]));
    A s = A(0);
    for (int64_t d = 0; d < D; ++d) s += exp_acc(static_cast<A>(src[d * inner]) - m);
    const A inv = A(1) / s, lse = log(s);
    for (int64_t d = 0; d < D; ++d) dst[d * inner] = softmax_value<Log, A, T>(static_cast<A>(src[d * inner]), m, inv, lse);
  }
}

template <bool Log, typename T>
void launch_softmax(const Tensor& x, const Tensor& out, const ReduceShape& s) {
  LaunchContext ctx(x);
  const T* px = static_cast<const T*>(x.data_ptr());
  T* po = ptr<T>(out);
  constexpr int64_t kMaxGrid = int64_t(1) << 20;
  if (s.inner == 1 && s.R <= kWarpRowMax) {
    const unsigned grid = static_cast<unsigned>(std::min((s.outer + kWarpRows - 1) / kWarpRows, kMaxGrid));
    softmax_warp_kernel<Log, T><<<grid, kWarpRows * kWarpSize, 0, ctx.stream>>>(px, po, s.outer, s.R);
  } else if (s.inner == 1) {
    const unsigned grid = static_cast<unsigned>(std::min(s.outer, kMaxGrid));
    softmax_block_kernel<Log, T><<<grid, kBlockRowThreads, 0, ctx.stream>>>(px, po, s.outer, s.R);
  } else {
    softmax_columns_kernel<Log, T><<<blocks_for(s.outer * s.inner), kBlockThreads, 0, ctx.stream>>>(
        px, po, s.outer, s.R, s.inner);
  }
  EMBER_CUDA_CHECK_LAUNCH();
}

template <bool Log>
void softmax_kernel(OpCall& c) {
  const ReduceMeta m = reduce_meta(c);  // x: contiguous, in the result's dtype
  const Tensor& out = m.outputs[0];
  if (out.numel() > 0) {
    EMBER_DISPATCH_FLOATING(out.dtype(), Log ? "log_softmax" : "softmax", [&] {
      launch_softmax<Log, scalar_t>(m.x, out, along_dim(c.in(0), m.dims[0]));
    });
  }
  m.finish(c);
}

EMBER_REGISTER_KERNEL(softmax, CUDA, softmax_kernel<false>);
EMBER_REGISTER_KERNEL(log_softmax, CUDA, softmax_kernel<true>);

}  // namespace
}  // namespace ember::cuda::reduce
