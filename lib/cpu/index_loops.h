// Loops shared by the CPU's shape and indexing kernels (lib/cpu/shape.cpp,
// index*.cpp, sort.cpp): parallel loops over the positions of a shape in runs
// (Note [Runs]), and the restrided views, copies (kernels/restride.h) and
// element-size switches (kernels/dtype_dispatch.h) they are used with.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "cpu/parallel.h"
#include "ember/tensor.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/restride.h"

namespace ember::cpu {

// Records the first bad index seen inside a parallel loop (kernels may not throw
// there, Note in parallel.h); the kernel throws after the loop.
struct BadIndex {
  std::atomic<bool> set{false};
  int64_t value = 0;
  void record(int64_t v) {
    bool expected = false;
    if (set.compare_exchange_strong(expected, true)) value = v;
  }
  explicit operator bool() const { return set.load(); }
};

// Byte strides of t for the dims of `sizes` except `skip` (-1: none); a 0-dim t has none.
inline DimVector byte_strides_without(const Tensor& t, int64_t skip) {
  DimVector out;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (d != skip) out.push_back(t.strides()[d] * t.element_size());
  return out;
}

// Note [Runs]: ops along a dim, and others that need more than an elementwise
// loop, iterate the positions of a shape (row-major) as runs: stretches of
// positions along the innermost dim after coalescing, where operand k is at byte
// offset base[k] + p * step[k] for the p-th position of the run. A kernel's inner
// loops then use plain strides, which the compiler vectorizes.
template <size_t N>
struct RunGeometry {
  DimVector sizes;                    // coalesced, never empty
  std::array<DimVector, N> strides;   // byte strides per operand
};

template <size_t N>
RunGeometry<N> coalesce(const DimVector& sizes, const std::array<DimVector, N>& strides) {
  RunGeometry<N> g;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    bool merge = !g.sizes.empty();
    for (size_t k = 0; k < N && merge; ++k) merge = g.strides[k].back() == strides[k][d] * sizes[d];
    if (merge) {
      g.sizes.back() *= sizes[d];
      for (size_t k = 0; k < N; ++k) g.strides[k].back() = strides[k][d];
    } else {
      g.sizes.push_back(sizes[d]);
      for (size_t k = 0; k < N; ++k) g.strides[k].push_back(strides[k][d]);
    }
  }
  if (g.sizes.empty()) {
    g.sizes.push_back(1);
    for (size_t k = 0; k < N; ++k) g.strides[k].push_back(0);
  }
  return g;
}

// f(first, n, base, step) for each run of the positions [begin, end) (serially);
// first is the run's row-major position in the (uncoalesced) shape.
template <size_t N, typename F>
void for_each_run_in(const RunGeometry<N>& g, int64_t begin, int64_t end, const F& f) {
  static_assert(N <= 4, "at most 4 operands");
  const int64_t nd = static_cast<int64_t>(g.sizes.size()), inner = g.sizes[nd - 1];
  DimVector idx(nd, 0);
  std::array<int64_t, N> base{}, step{};
  int64_t rem = begin;
  for (int64_t d = nd - 1; d >= 0; --d) {
    idx[d] = rem % g.sizes[d];
    rem /= g.sizes[d];
    for (size_t k = 0; k < N; ++k) base[k] += idx[d] * g.strides[k][d];
  }
  for (size_t k = 0; k < N; ++k) step[k] = g.strides[k][nd - 1];
  for (int64_t pos = begin; pos < end;) {
    const int64_t n = std::min(inner - idx[nd - 1], end - pos);
    f(pos, n, base, step);
    pos += n;
    idx[nd - 1] += n;
    for (size_t k = 0; k < N; ++k) base[k] += n * step[k];
    for (int64_t d = nd - 1; d > 0 && idx[d] == g.sizes[d]; --d) {
      idx[d] = 0;
      ++idx[d - 1];
      for (size_t k = 0; k < N; ++k) base[k] += g.strides[k][d - 1] - g.sizes[d] * g.strides[k][d];
    }
  }
}

// for_each_run_in over every position of sizes, split across threads; work is
// the cost of one position in elements (it sets the grain).
template <size_t N, typename F>
void for_each_run(const DimVector& sizes, const std::array<DimVector, N>& strides, int64_t work,
                  const F& f) {
  int64_t total = 1;
  for (int64_t s : sizes) total *= s;
  if (total == 0) return;
  RunGeometry<N> g = coalesce<N>(sizes, strides);
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work));
  parallel_for(0, total, grain, [&](int64_t b, int64_t e) { for_each_run_in<N>(g, b, e, f); });
}

}  // namespace ember::cpu
