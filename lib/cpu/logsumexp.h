// logsumexp of a row of scores, shared by cross_entropy's forward and backward
// kernels (loss_class.cpp, loss_class_backward.cpp): max first, then a
// vectorized sum of exp (fast_exp for float).
#pragma once
#include <cmath>
#include <limits>

#include "kernels/dtype_dispatch.h"
#include "cpu/vec_math.h"

namespace ember::cpu {

template <typename Acc>
inline Acc exp_acc(Acc v) {
  if constexpr (std::is_same_v<Acc, float>) return fast_exp(v);
  else return std::exp(v);
}

// The max m of a row and log(sum(exp(x - m))) (0 when m is infinite: exp
// would give NaN). Kept apart, x - m - log_sum is exact near the max, where
// x - (m + log_sum) would round m + log_sum first.
template <typename T>
inline void row_max_logsum(const T* x, int64_t n, opmath_t<T>& m, opmath_t<T>& log_sum) {
  using acc_t = opmath_t<T>;
  acc_t mx = -std::numeric_limits<acc_t>::infinity();
#pragma omp simd reduction(max : mx)
  for (int64_t i = 0; i < n; ++i) mx = std::max(mx, static_cast<acc_t>(x[i]));
  m = mx;
  log_sum = 0;
  if (std::isinf(mx)) return;
  acc_t s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += exp_acc(static_cast<acc_t>(x[i]) - mx);
  log_sum = std::log(s);
}

// log(sum(exp(x))) of a row, stable: max first.
template <typename T>
inline opmath_t<T> row_logsumexp(const T* x, int64_t n) {
  opmath_t<T> m, log_sum;
  row_max_logsum(x, n, m, log_sum);
  return m + log_sum;
}

}  // namespace ember::cpu
