// Helpers shared by the nn backward kernels (lib/cpu/*_backward.cpp): reading
// the gradient mask, splitting work into parts that each own an accumulation
// buffer (no atomics, reproducible), and the fused sums of a normalization's
// backward.
#pragma once
#include "cpu/nn_common.h"
#include "dispatch/op_call.h"
#include "kernels/grad_flags.h"

namespace ember::cpu {

// How many parts to split n items into: one per thread at most, each at least
// `grain` items.
inline int64_t num_parts(int64_t n, int64_t grain) {
  const int64_t by_grain = (n + grain - 1) / std::max<int64_t>(grain, 1);
  return std::max<int64_t>(1, std::min<int64_t>(max_threads(), by_grain));
}

// Runs f(part, begin, end) for `parts` contiguous ranges of [0, n) in
// parallel. A part's range depends only on n and parts, so per-part buffers
// summed in part order give the same result run to run.
template <typename F>
void parallel_parts(int64_t n, int64_t parts, const F& f) {
  parallel_for(0, parts, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) f(p, n * p / parts, n * (p + 1) / parts);
  });
}

// A tensor of `sizes` in dtype dt holding v (double values, converted).
inline Tensor tensor_of(const std::vector<double>& v, const DimVector& sizes, DType dt) {
  Tensor t = empty(sizes, TensorOptions(dt));
  EMBER_DISPATCH_FLOATING(dt, "tensor_of", [&] {
    scalar_t* p = static_cast<scalar_t*>(t.data_ptr());
    for (size_t i = 0; i < v.size(); ++i) p[i] = convert<scalar_t>(v[i]);
  });
  return t;
}

// s += sum of dy[0..n), dot += sum of dy[i] * (x[i] - m): blocks accumulated
// in opmath (vectorized), blocks added in double.
template <typename T>
inline void grad_moments(const T* dy, const T* x, int64_t n, double m, double& s, double& dot) {
  using acc_t = opmath_t<T>;
  const acc_t am = static_cast<acc_t>(m);
  for (int64_t b = 0; b < n; b += 1024) {
    const int64_t e = std::min(n, b + 1024);
    acc_t bs = 0, bd = 0;
#pragma omp simd reduction(+ : bs, bd)
    for (int64_t i = b; i < e; ++i) {
      const acc_t g = static_cast<acc_t>(dy[i]);
      bs += g;
      bd += g * (static_cast<acc_t>(x[i]) - am);
    }
    s += bs;
    dot += bd;
  }
}

// As grad_moments with g = dy * w (per-element weights w[0..n)).
template <typename T, typename Acc>
inline void weighted_grad_moments(const T* dy, const T* x, const Acc* w, int64_t n, Acc m, double& s,
                                  double& dot) {
  for (int64_t b = 0; b < n; b += 1024) {
    const int64_t e = std::min(n, b + 1024);
    Acc bs = 0, bd = 0;
#pragma omp simd reduction(+ : bs, bd)
    for (int64_t i = b; i < e; ++i) {
      const Acc g = static_cast<Acc>(dy[i]) * w[i];
      bs += g;
      bd += g * (static_cast<Acc>(x[i]) - m);
    }
    s += bs;
    dot += bd;
  }
}

// The gradient of a normalization over a set of M values sharing mean and
// rstd: dx = (dy * w - a - (x - mean) * b) * rstd with
// a = sum(dy w) / M and b = sum(dy w (x - mean)) rstd^2 / M; here over n
// contiguous values with one scale w (per channel).
template <typename T, typename Acc>
inline void normalized_grad(const T* dy, const T* x, T* dx, int64_t n, Acc w, Acc a, Acc b, Acc mean,
                            Acc rstd) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i)
    dx[i] = convert<T>((static_cast<Acc>(dy[i]) * w - a - (static_cast<Acc>(x[i]) - mean) * b) * rstd);
}

}  // namespace ember::cpu
