// Reductions across the threads of a warp and of a block, for the reduction,
// softmax, norm and loss kernels.
//
//   __shared__ float shared[kMaxWarps];          // one slot per warp
//   float total = block_reduce(v, SumOp{}, shared);   // every thread gets the total
//
// Every thread of the block must call block_reduce (it synchronizes the block), with
// blockDim.x a multiple of 32 and at most 1024. The op is a functor with
// `T operator()(T, T)` and `T identity()`.
#pragma once
#include <cuda_runtime.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <type_traits>

namespace ember::cuda {

constexpr int kWarpSize = 32;
constexpr int kMaxWarps = 1024 / kWarpSize;

template <typename T>
struct SumOp {
  __device__ T operator()(T a, T b) const { return a + b; }
  __device__ T identity() const { return T(0); }
};

// max/min that propagate nan, as the reductions of PyTorch do.
template <typename T>
struct MaxOp {
  __device__ T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (a != a) return a;
      if (b != b) return b;
    }
    return a > b ? a : b;
  }
  __device__ T identity() const { return lowest(); }
  __device__ static T lowest() {
    if constexpr (std::is_floating_point_v<T>) return -INFINITY;
    else return std::numeric_limits<T>::lowest();
  }
};
template <typename T>
struct MinOp {
  __device__ T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (a != a) return a;
      if (b != b) return b;
    }
    return a < b ? a : b;
  }
  __device__ T identity() const {
    if constexpr (std::is_floating_point_v<T>) return INFINITY;
    else return std::numeric_limits<T>::max();
  }
};

// Every lane gets op over the 32 lanes' values.
template <typename T, typename Op>
__device__ inline T warp_reduce(T v, const Op& op) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}
template <typename T>
__device__ inline T warp_reduce_sum(T v) { return warp_reduce(v, SumOp<T>{}); }
template <typename T>
__device__ inline T warp_reduce_max(T v) { return warp_reduce(v, MaxOp<T>{}); }

// Every thread of the block gets op over all threads' values. `shared` holds at
// least blockDim.x / 32 values; it may be reused after the call returns.
template <typename T, typename Op>
__device__ inline T block_reduce(T v, const Op& op, T* shared) {
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  const int warps = (blockDim.x + kWarpSize - 1) / kWarpSize;
  v = warp_reduce(v, op);
  __syncthreads();  // a previous call's readers are done with `shared`
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  v = lane < warps ? shared[lane] : op.identity();
  return warp_reduce(v, op);
}

}  // namespace ember::cuda
