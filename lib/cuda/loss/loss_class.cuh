// Shared by the CUDA kernels of cross_entropy and nll_loss and their backward
// (loss_class.cu, loss_class_backward.cu): the input read as [N, C, S] (S = 1 for
// [N, C] and [C] inputs), as cpu/loss_class.cpp; one thread per position
// (n, s), walking the C classes with stride S (neighbouring positions are
// neighbouring addresses when S > 1; with S == 1 a thread reads its own row).
// Class-index targets outside [0, C) that are not ignore_index are reported as
// DeviceErrorKind::TargetOutOfRange (IndexError at the next synchronization).
#pragma once
#include <cmath>

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

// (max m, log(sum(exp(x - m)))) of one position's C scores (stride S); log_sum is
// 0 when m is infinite (exp would give NaN), as cpu/logsumexp.h.
template <typename T, typename A>
__device__ inline void position_max_logsum(const T* x, int64_t C, int64_t S, A& m, A& log_sum) {
  m = A(-INFINITY);
  for (int64_t c = 0; c < C; ++c) {
    A v = static_cast<A>(x[c * S]);
    m = v > m ? v : m;
  }
  log_sum = A(0);
  if (isinf(m)) return;
  A s = A(0);
  for (int64_t c = 0; c < C; ++c) s += reduce::exp_acc(static_cast<A>(x[c * S]) - m);
  log_sum = log(s);
}

}  // namespace ember::cuda::loss
