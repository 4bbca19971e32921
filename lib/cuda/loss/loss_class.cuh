// Shared by the CUDA kernels of cross_entropy and nll_loss and their backward
// (loss_class.cu, loss_class_backward.cu): the input read as [N, C, S] (S = 1 for
// [N, C] and [C] inputs), as cpu/loss_class.cpp. With S == 1 a warp takes a
// position (its C scores are contiguous: lanes take every 32nd class, loads
// coalesce, sums go through warp shuffles); with S > 1 a thread takes a position
// and walks the C classes with stride S (neighbouring threads read neighbouring
// addresses). Class-index targets outside [0, C) that are not ignore_index are
// reported as DeviceErrorKind::TargetOutOfRange (IndexError at the next
// synchronization).
#pragma once
#include <cmath>

#include "cuda/block_reduce.cuh"
#include "cuda/device_error.h"
#include "cuda/loss/loss_reduce.cuh"

namespace ember::cuda::loss {

struct ClassGeometry {
  int64_t N, C, S;
  int64_t positions() const { return N * S; }
};

inline ClassGeometry class_geometry(const Tensor& x) {
  const int64_t C = x.dim() == 1 ? x.size(0) : x.size(1);
  const int64_t N = x.dim() == 1 ? 1 : x.size(0);
  return {N, C, N * C == 0 ? 0 : x.numel() / (N * C)};
}

// The dtype a class loss computes in (float for float16/bfloat16).
inline DType opmath_dtype(DType dt) { return dt == kFloat16 || dt == kBFloat16 ? kFloat32 : dt; }

// Class weights on x's device as a contiguous tensor of opmath dtype, or
// undefined when none were given (every weight 1).
inline Tensor device_weights(const Tensor& weight, const Tensor& x) {
  if (!weight.defined()) return Tensor();
  return weight.to(x.device(), opmath_dtype(x.dtype())).contiguous();
}

namespace reduce_detail {
template <typename A>
struct PlainSum {
  __device__ A operator()(A a, A b) const { return a + b; }
};
template <typename A>
struct NanIgnoringMax {
  __device__ A operator()(A a, A b) const { return b > a ? b : a; }
};
}  // namespace reduce_detail

template <typename A>
__device__ inline A weight_at(const A* w, int64_t c) {
  return w ? w[c] : A(1);
}

// Whether target k of a position counts (not ignored); reports and returns false
// for one out of range.
__device__ inline bool target_ok(int64_t k, int64_t C, int64_t ignore_index, const DeviceErrorReporter& err) {
  if (k == ignore_index) return false;
  if (k < 0 || k >= C) {
    err.report(DeviceErrorKind::TargetOutOfRange, k, C);
    return false;
  }
  return true;
}

// Who works on one position: a whole warp (Warp: S == 1, a position's C scores are
// contiguous, lanes take every 32nd class and loads coalesce) or one thread (S > 1:
// neighbouring threads take neighbouring positions). A position's sums are folded
// per lane, then over the warp (every lane gets the total).
template <bool Warp>
struct Lanes {
  int lane;  // this lane's first class (0 for one thread)
  static constexpr int kStep = Warp ? kWarpSize : 1;
  template <typename A>
  __device__ A sum(A v) const {
    if constexpr (Warp) return warp_reduce(v, reduce_detail::PlainSum<A>{});
    else return v;
  }
  template <typename A>
  __device__ A max(A v) const {
    if constexpr (Warp) return warp_reduce(v, reduce_detail::NanIgnoringMax<A>{});
    else return v;
  }
};

// The positions a thread (or warp) takes: [first, positions) by `step`. For a warp
// every lane gets the same sequence (its shuffles need all 32 lanes).
template <bool Warp>
__device__ inline int64_t first_position() {
  const int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  return Warp ? t / kWarpSize : t;
}
template <bool Warp>
__device__ inline int64_t position_step() {
  const int64_t n = int64_t(gridDim.x) * blockDim.x;
  return Warp ? n / kWarpSize : n;
}

// The max of one position's C scores (stride S), NaN ignored as std::max does on the
// CPU (a NaN score still makes the sum of exp NaN).
template <bool Warp, typename T, typename A>
__device__ inline A position_max(const T* x, int64_t C, int64_t S, Lanes<Warp> l) {
  A m = A(-INFINITY);
  for (int64_t c = l.lane; c < C; c += l.kStep) {
    A v = static_cast<A>(x[c * S]);
    m = v > m ? v : m;
  }
  return l.max(m);
}

// (max m, log(sum(exp(x - m)))) of one position's scores; log_sum is 0 when m is
// infinite (exp would give NaN), as cpu/logsumexp.h.
template <bool Warp, typename T, typename A>
__device__ inline void position_max_logsum(const T* x, int64_t C, int64_t S, Lanes<Warp> l, A& m, A& log_sum) {
  m = position_max<Warp, T, A>(x, C, S, l);
  log_sum = A(0);
  if (isinf(m)) return;
  A s = A(0);
  for (int64_t c = l.lane; c < C; c += l.kStep) s += reduce::exp_acc(static_cast<A>(x[c * S]) - m);
  log_sum = log(l.sum(s));
}

// The launch of a class-loss kernel: a warp per position (S == 1) or a thread.
inline unsigned class_loss_blocks(int64_t positions, bool warp) {
  return blocks_for(warp ? positions * kWarpSize : positions);
}

}  // namespace ember::cuda::loss
