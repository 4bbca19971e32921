// Helpers shared by the nn kernels (norm.cpp, loss_*.cpp): reading small
// parameter tensors as opmath values, deterministic parallel sums, and the
// reduction of per-element losses.
#pragma once

#include <vector>

#include "kernels/dtype_dispatch.h"
#include "cpu/parallel.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"
#include "kernels/norm_shape.h"

// EMBER_CLONES: the build targets baseline x86-64 (SSE2), so the hot loops of
// the nn kernels are also compiled for AVX2 and AVX-512 and the best version
// is picked once, at load time (function multi-versioning). Put it on
// functions that do a row's or a chunk's work: a clone is called indirectly
// and cannot be inlined.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(EMBER_NO_CLONES)
#define EMBER_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define EMBER_CLONES
#endif

namespace ember::cpu {

// The values of a (small) floating tensor of any dtype, flattened in row-major
// order and converted to Acc; `n` copies of `fill` when t is undefined (None).
template <typename Acc>
std::vector<Acc> param_values(const Tensor& t, int64_t n, Acc fill) {
  if (!t.defined()) return std::vector<Acc>(static_cast<size_t>(n), fill);
  Tensor c = t.contiguous();
  std::vector<Acc> v(static_cast<size_t>(c.numel()));
  EMBER_DISPATCH_FLOATING(c.dtype(), "param_values", [&] {
    const scalar_t* p = static_cast<const scalar_t*>(c.data_ptr());
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<Acc>(convert<double>(p[i]));
  });
  return v;
}

// Writes values into a 1-d floating tensor of any dtype and strides (running stats).
template <typename Acc>
void store_values(const Tensor& t, const std::vector<Acc>& v) {
  EMBER_DISPATCH_FLOATING(t.dtype(), "store_values", [&] {
    scalar_t* p = static_cast<scalar_t*>(t.data_ptr());
    int64_t s = t.dim() == 0 ? 0 : t.stride(0);
    for (size_t i = 0; i < v.size(); ++i) p[static_cast<int64_t>(i) * s] = convert<scalar_t>(v[i]);
  });
}

// sum over [0, n) of f(begin, end) (each returning a partial sum) split across
// threads. The split depends only on n, grain and the thread count, so the
// result is reproducible run to run.
template <typename F>
double parallel_sum(int64_t n, int64_t grain, const F& f) {
  // One partial per piece of the split, added in piece order.
  const int64_t pieces = std::max<int64_t>(1, std::min<int64_t>(n, threads_for(n, grain) * kTasksPerThread));
  const int64_t chunk = std::max<int64_t>(1, (n + pieces - 1) / pieces);
  std::vector<double> partial(static_cast<size_t>((n + chunk - 1) / chunk + 1), 0.0);
  parallel_for(0, (n + chunk - 1) / chunk, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) partial[static_cast<size_t>(p)] = f(p * chunk, std::min(n, (p + 1) * chunk));
  });
  double s = 0;
  for (double p : partial) s += p;
  return s;
}

// sum of p[0..n), blocks accumulated in Acc (vectorized), blocks added in double.
template <typename T>
inline double dense_sum(const T* p, int64_t n) {
  using acc_t = opmath_t<T>;
  double total = 0;
  for (int64_t b = 0; b < n; b += 1024) {
    int64_t e = std::min(n, b + 1024);
    acc_t s = 0;
#pragma omp simd reduction(+ : s)
    for (int64_t i = b; i < e; ++i) s += static_cast<acc_t>(p[i]);
    total += s;
  }
  return total;
}

template <typename T>
EMBER_CLONES double dense_sum_clones(const T* p, int64_t n) {
  return dense_sum(p, n);
}

// A 0-dim tensor of dtype dt holding v.
inline Tensor scalar_result(double v, DType dt) { return full({}, v, TensorOptions(dt)); }

// Reduces a contiguous tensor of per-element losses: reduction 1 mean, 2 sum.
inline Tensor reduce_losses(const Tensor& losses, int64_t reduction) {
  double s = 0;
  EMBER_DISPATCH_FLOATING(losses.dtype(), "reduce_losses", [&] {
    const scalar_t* p = static_cast<const scalar_t*>(losses.data_ptr());
    s = parallel_sum(losses.numel(), kGrainSize, [&](int64_t b, int64_t e) { return dense_sum_clones(p + b, e - b); });
  });
  if (reduction == 1) s /= static_cast<double>(losses.numel());  // 0/0: NaN, as PyTorch
  return scalar_result(s, losses.dtype());
}

}  // namespace ember::cpu
