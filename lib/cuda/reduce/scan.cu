// CUDA kernels of the inclusive scans cumsum and cumprod along one dim.
//
// The input (cast as cpu/scan.cpp does, made contiguous) is seen as [outer, D, inner]:
//   inner == 1  one block per row (grid-stride over rows): the row goes by tiles of
//               blockDim.x values; each tile is scanned in shared memory
//               (Hillis-Steele, double buffered) and offset by the carry of the
//               tiles before it.
//   inner > 1   one thread per column (o, i), walking the D values sequentially;
//               neighbouring threads read neighbouring columns, so loads coalesce.
//               (A few columns with a very long D leave most of the device idle:
//               correct, not fast.)
// Accumulators as the CPU: double for float64 and float32, float for
// float16/bfloat16, int64 (wrapping) for integers and bool.
#include "kernels/reduce_meta.h"
#include "cuda/reduce/reduce_kernel.cuh"
#include "kernels/int_math.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"

namespace ember::cuda::reduce {
namespace {


template <typename T>
using scan_acc_t = std::conditional_t<is_reduced_float_v<T>, float,
                   std::conditional_t<std::is_floating_point_v<T>, double, int64_t>>;

template <bool Sum, typename A>
__device__ inline A scan_op(A a, A b) {
  if constexpr (std::is_integral_v<A>) return Sum ? wrap_add(a, b) : wrap_mul(a, b);
  else return Sum ? a + b : a * b;
}

constexpr int kScanThreads = 256;

template <bool Sum, typename In, typename T>
__global__ void scan_rows_kernel(const In* x, T* out, int64_t rows, int64_t D) {
  using A = scan_acc_t<T>;
  __shared__ A buf[2][kScanThreads];
  const int tid = static_cast<int>(threadIdx.x);
  const int n = static_cast<int>(blockDim.x);  // a power of two, at most kScanThreads
  const A init = A(Sum ? 0 : 1);
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {  // same trip count for the block
    const In* src = x + row * D;
    T* dst = out + row * D;
    A carry = init;
    for (int64_t t0 = 0; t0 < D; t0 += n) {
      const int64_t d = t0 + tid;
      int cur = 0;
      buf[0][tid] = d < D ? convert<A>(src[d]) : init;
      __syncthreads();
      for (int off = 1; off < n; off *= 2) {
        A v = buf[cur][tid];
        if (tid >= off) v = scan_op<Sum>(buf[cur][tid - off], v);
        buf[1 - cur][tid] = v;
        cur = 1 - cur;
        __syncthreads();
      }
      if (d < D) dst[d] = convert<T>(scan_op<Sum>(carry, buf[cur][tid]));
      carry = scan_op<Sum>(carry, buf[cur][n - 1]);
      __syncthreads();  // the next tile overwrites buf
    }
  }
}

template <bool Sum, typename In, typename T>
__global__ void scan_columns_kernel(const In* x, T* out, int64_t outer, int64_t D, int64_t inner) {
  using A = scan_acc_t<T>;
  const int64_t columns = outer * inner;
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < columns;
       c += int64_t(gridDim.x) * blockDim.x) {
    const int64_t o = c / inner, i = c - o * inner;
    const int64_t base = o * D * inner + i;
    A acc = A(Sum ? 0 : 1);
    for (int64_t d = 0; d < D; ++d) {
      acc = scan_op<Sum>(acc, convert<A>(x[base + d * inner]));
      out[base + d * inner] = convert<T>(acc);
    }
  }
}

template <bool Sum, typename In, typename T>
void launch_scan(const Tensor& x, const Tensor& out, const ReduceShape& s) {
  LaunchContext ctx(x);
  const In* px = static_cast<const In*>(x.data_ptr());
  T* po = ptr<T>(out);
  if (s.inner == 1) {
    const int threads = std::max(32, pow2_at_least(s.R, kScanThreads));
    const unsigned grid = static_cast<unsigned>(std::min<int64_t>(s.outer, int64_t(1) << 20));
    scan_rows_kernel<Sum, In, T><<<grid, threads, 0, ctx.stream>>>(px, po, s.outer, s.R);
  } else {
    scan_columns_kernel<Sum, In, T><<<blocks_for(s.outer * s.inner), kBlockThreads, 0, ctx.stream>>>(
        px, po, s.outer, s.R, s.inner);
  }
  EMBER_CUDA_CHECK_LAUNCH();
}

template <bool Sum>
void scan_kernel(OpCall& c) {
  const char* name = Sum ? "cumsum" : "cumprod";
  const ReduceMeta m = reduce_meta(c);  // x: contiguous, cast first (integers: read into int64)
  const Tensor &x = m.x, &out = m.outputs[0];
  const DType out_dtype = out.dtype();
  const ReduceShape s = along_dim(c.in(0), m.dims[0]);
  if (out.numel() > 0) {
    if (x.dtype() == out_dtype) {
      EMBER_DISPATCH_ALL(out_dtype, name, [&] { launch_scan<Sum, scalar_t, scalar_t>(x, out, s); });
    } else {
      EMBER_DISPATCH_INTEGRAL(x.dtype(), name, [&] { launch_scan<Sum, scalar_t, int64_t>(x, out, s); });
    }
  }
  m.finish(c);
}

EMBER_REGISTER_KERNEL(cumsum, CUDA, scan_kernel<true>);
EMBER_REGISTER_KERNEL(cumprod, CUDA, scan_kernel<false>);

}  // namespace
}  // namespace ember::cuda::reduce
