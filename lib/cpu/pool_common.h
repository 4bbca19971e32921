// The loop over planes of the CPU's 2-d pooling kernels (pool.cpp,
// pool_backward.cpp); the windows themselves are in kernels/pool_window.h.
#pragma once
#include <algorithm>
#include <cstdint>
#include <initializer_list>

#include "kernels/pool_window.h"  // Window2d, AvgWindow, avg_window
#include "cpu/parallel.h"
#include "ops/pool_shape.h"

namespace ember::cpu {

// The product of a window's sizes as a work estimate, saturating at INT64_MAX: a huge
// (later refused or empty) window must not overflow the estimate.
inline int64_t work_product(std::initializer_list<int64_t> factors) {
  int64_t out = 1;
  for (int64_t f : factors)
    if (__builtin_mul_overflow(out, f, &out)) return INT64_MAX;
  return out;
}

// Output planes of up to this many windows have them computed once per call (40
// bytes each) instead of once per output of every plane (pool.cpp, pool_backward.cpp).
constexpr int64_t kPrecomputedWindows = 4096;

// Runs plane(p) for each of the planes of [N, C, ...] across threads.
template <typename F>
void for_each_plane(int64_t planes, int64_t work_per_plane, const F& plane) {
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work_per_plane));
  parallel_for(0, planes, grain, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) plane(p);
  });
}

}  // namespace ember::cpu
