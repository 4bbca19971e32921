// The general reduction kernel of the CUDA reduce group (and of the losses' final
// sums): an input made contiguous and seen as [outer, R, inner] (reduce_geometry.h)
// is reduced over R into outer * inner outputs (output c = o * inner + i, i.e. the
// kept dims in row-major order, which is the contiguous output's layout).
//
// One kernel, two thread layouts, chosen on the host from the shape:
//   inner == 1  "rows": the R values of an output are contiguous. A group of br
//               threads (consecutive lanes, so loads coalesce) shares a row; a block
//               holds bc = threads / br rows (one warp per short row, a whole block
//               per long row).
//   inner > 1   "columns": the outputs are contiguous. bc consecutive lanes take bc
//               consecutive outputs (loads coalesce over inner), and br groups of
//               them split R.
// Each thread folds its values in the accumulator type (Ops::acc_t: float for
// float16/bfloat16, double for float64, int64 for integer sums, structs for
// arg max/min, Welford and logsumexp), then the block combines the br partials of
// each output with a tree in shared memory (any accumulator type, deterministic).
// When there are too few outputs to fill the device and R is long (e.g. 10^8
// values to one), R is also split across blockIdx.y: each block writes a partial
// accumulator and a second launch of the same kernel combines the partials of each
// output. The split depends only on the shape and the device's multiprocessor
// count, and nothing is added atomically, so a result is the same bits every run.
//
// Ops contract (device side): acc_t; identity(); lift(in_t v, int64_t r) -> acc_t
// (r: the position in R, used by argmax); combine(a, b) (associative and, for
// the order it may see, commutative: arg ops break ties by index);
// write(int64_t c, acc_t) (stores output c).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "kernels/element_types.h"
#include "kernels/dtype_dispatch.h"
#include "cuda/launch.h"
#include "cuda/reduce/reduce_geometry.h"
#include "ember/ops/factories.h"

namespace ember::cuda::reduce {

// A tensor's data as T* (host side, for kernel arguments).
template <typename T>
T* ptr(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

// One block: bc * br threads, br a power of two.
struct ReduceLaunch {
  bool r_fast;  // rows layout (lanes along R) or columns layout (lanes along outputs)
  int bc, br;
  int64_t splits, chunk;  // R is cut into `splits` ranges of `chunk` (blockIdx.y)
};

template <typename Ops, bool FromPartial>
__global__ void reduce_kernel(const void* input, Ops ops, ReduceShape s, ReduceLaunch L,
                              typename Ops::acc_t* partial_out) {
  using acc_t = typename Ops::acc_t;
  extern __shared__ __align__(16) unsigned char reduce_smem[];
  acc_t* shared = reinterpret_cast<acc_t*>(reduce_smem);
  const int tid = static_cast<int>(threadIdx.x);
  const int rl = L.r_fast ? tid % L.br : tid / L.bc;  // lane along R
  const int cl = L.r_fast ? tid / L.br : tid % L.bc;  // which output of the tile
  const int64_t n_out = s.outer * s.inner;
  const int64_t tiles = (n_out + L.bc - 1) / L.bc;
  const int64_t split = blockIdx.y;
  const int64_t r0 = split * L.chunk;
  const int64_t r1 = r0 + L.chunk < s.R ? r0 + L.chunk : s.R;
  // Every thread of the block runs the same number of iterations (the bound does
  // not depend on the thread), so the __syncthreads below are reached by all.
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t c = tile * L.bc + cl;
    const bool valid = c < n_out;
    acc_t acc = ops.identity();
    if (valid) {
      const int64_t o = c / s.inner, i = c - o * s.inner;
      const int64_t base = o * s.R * s.inner + i;
      for (int64_t r = r0 + rl; r < r1; r += L.br) {
        if constexpr (FromPartial) acc = ops.combine(acc, static_cast<const acc_t*>(input)[base + r * s.inner]);
        else acc = ops.combine(acc, ops.lift(static_cast<const typename Ops::in_t*>(input)[base + r * s.inner], r));
      }
    }
    acc_t* mine = shared + cl * L.br;
    mine[rl] = acc;
    __syncthreads();
    for (int step = L.br / 2; step > 0; step /= 2) {
      if (rl < step) mine[rl] = ops.combine(mine[rl], mine[rl + step]);
      __syncthreads();
    }
    if (rl == 0 && valid) {
      if (partial_out) partial_out[c * L.splits + split] = mine[0];
      else ops.write(c, mine[0]);
    }
    __syncthreads();  // the next tile reuses `shared`
  }
}

inline int pow2_at_least(int64_t n, int cap) {
  int p = 1;
  while (p < cap && p < n) p *= 2;
  return p;
}

constexpr int kReduceThreads = 256;

// The launch layout for a shape (no split yet).
inline ReduceLaunch layout_for(const ReduceShape& s) {
  ReduceLaunch L{};
  if (s.inner == 1) {
    L.r_fast = true;
    L.br = pow2_at_least(s.R, kReduceThreads);
    L.bc = kReduceThreads / L.br;
  } else {
    L.r_fast = false;
    L.bc = pow2_at_least(s.inner, 64);
    L.br = std::min(kReduceThreads / L.bc, pow2_at_least(s.R, kReduceThreads));
  }
  L.splits = 1;
  L.chunk = s.R > 0 ? s.R : 1;
  return L;
}

template <typename Ops, bool FromPartial>
void launch_reduce_kernel(const void* input, const Ops& ops, const ReduceShape& s, const ReduceLaunch& L,
                          typename Ops::acc_t* partial_out, cudaStream_t stream) {
  const int64_t tiles = (s.outer * s.inner + L.bc - 1) / L.bc;
  const unsigned gx = static_cast<unsigned>(std::min<int64_t>(tiles, int64_t(1) << 20));
  const dim3 grid(gx, static_cast<unsigned>(L.splits));
  const size_t smem = sizeof(typename Ops::acc_t) * static_cast<size_t>(L.bc * L.br);
  reduce_kernel<Ops, FromPartial><<<grid, L.bc * L.br, smem, stream>>>(input, ops, s, L, partial_out);
  EMBER_CUDA_CHECK_LAUNCH();
}

// Reduces x (contiguous, on the device, of Ops::in_t, seen as s) with ops: every
// output c gets ops.write(c, ...). Queued on the current stream of x's device.
template <typename Ops>
void run_reduce(const Tensor& x, const ReduceShape& s, const Ops& ops) {
  using acc_t = typename Ops::acc_t;
  const int64_t n_out = s.outer * s.inner;
  if (n_out == 0) return;
  LaunchContext ctx(x);
  ReduceLaunch L = layout_for(s);
  const int64_t tiles = (n_out + L.bc - 1) / L.bc;
  const int64_t target_blocks = 4 * static_cast<int64_t>(multiprocessor_count());
  // Split R when the outputs alone leave the device mostly idle and each thread
  // would otherwise walk a long range (at least 16 values per thread per split).
  const int64_t per_block = static_cast<int64_t>(L.br) * 16;
  if (tiles < target_blocks && s.R > 2 * per_block) {
    int64_t splits = std::min<int64_t>({(target_blocks + tiles - 1) / tiles, s.R / per_block, 65535});
    if (splits > 1) {
      L.chunk = (s.R + splits - 1) / splits;
      L.splits = (s.R + L.chunk - 1) / L.chunk;
    }
  }
  if (L.splits == 1) {
    launch_reduce_kernel<Ops, false>(x.data_ptr(), ops, s, L, nullptr, ctx.stream);
    return;
  }
  // Pass 1: partials [n_out, splits]; pass 2: each output's row of partials.
  Tensor buffer = empty({n_out * L.splits * static_cast<int64_t>(sizeof(acc_t))},
                        TensorOptions(kUInt8).device(x.device()));
  acc_t* partial = static_cast<acc_t*>(buffer.data_ptr());
  launch_reduce_kernel<Ops, false>(x.data_ptr(), ops, s, L, partial, ctx.stream);
  const ReduceShape s2{n_out, L.splits, 1};
  const ReduceLaunch L2 = layout_for(s2);
  launch_reduce_kernel<Ops, true>(partial, ops, s2, L2, nullptr, ctx.stream);
  // `buffer` goes back to the caching allocator here; the allocator keeps a block
  // freed on a stream for later work queued on that same stream, so pass 2 reads
  // it before any reuse.
}

// ---- device helpers shared by the Ops -----------------------------------------------------

// Whether v beats a for max (Max) or min: NaN beats every number (it propagates),
// not an earlier NaN (argmax finds the first). As cpu/reduce_math.h's beats.
template <bool Max, typename A>
__device__ inline bool beats(A v, A a) {
  if constexpr (std::is_floating_point_v<A>) return (Max ? v > a : v < a) || (v != v && a == a);
  else return Max ? v > a : v < a;
}

template <typename A>
__device__ inline A exp_acc(A v) {
  if constexpr (std::is_same_v<A, float>) return expf(v);
  else return exp(v);
}

// max/min identity: -inf/+inf for floats, the type's limits otherwise (false/true for bool).
template <typename A, bool Max>
__device__ inline A minmax_identity() {
  if constexpr (std::is_same_v<A, bool>) return !Max;
  else if constexpr (std::is_floating_point_v<A>) return Max ? A(-INFINITY) : A(INFINITY);
  else return Max ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
}

}  // namespace ember::cuda::reduce
