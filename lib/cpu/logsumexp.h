// logsumexp of a row of scores, shared by cross_entropy's forward and backward
// kernels (loss_class.cpp, loss_class_backward.cpp): max first, then a
// vectorized sum of exp (fast_exp for float).
#pragma once
#include <cmath>
#include <limits>

#include "cpu/dtype_dispatch.h"
#include "cpu/vec_math.h"

namespace ember::cpu {

template <typename Acc>
inline Acc exp_acc(Acc v) {
  if constexpr (std::is_same_v<Acc, float>) return fast_exp(v);
  else return std::exp(v);
}

// log(sum(exp(x))) of a row, stable: max first.
template <typename T>
inline opmath_t<T> row_logsumexp(const T* x, int64_t n) {
  using acc_t = opmath_t<T>;
  acc_t m = -std::numeric_limits<acc_t>::infinity();
#pragma omp simd reduction(max : m)
  for (int64_t i = 0; i < n; ++i) m = std::max(m, static_cast<acc_t>(x[i]));
  if (std::isinf(m)) return m;  // all -inf (or an inf): exp would give NaN
  acc_t s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += exp_acc(static_cast<acc_t>(x[i]) - m);
  return m + std::log(s);
}

}  // namespace ember::cpu
