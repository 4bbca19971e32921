// Shared pieces of the 2-d pooling kernels (pool.cpp, pool_backward.cpp): the
// window attributes, the loop over planes and PyTorch's average-pool windows.
#pragma once
#include <algorithm>

#include "core/pool_window.h"  // Window2d, AvgWindow, avg_window
#include "cpu/parallel.h"
#include "dispatch/op_call.h"
#include "ops/pool_shape.h"

namespace ember::cpu {

// The window from attrs kernel, stride, padding (and dilation) at `first`, first + 1, ...
inline Window2d window_from(const OpCall& call, bool with_dilation, size_t first = 0) {
  const DimVector &k = call.attr(first).to_ints(), &s = call.attr(first + 1).to_ints(),
                  &p = call.attr(first + 2).to_ints();
  Window2d w{k[0], k[1], s[0], s[1], p[0], p[1]};
  if (with_dilation) {
    const DimVector& d = call.attr(first + 3).to_ints();
    w.dh = d[0];
    w.dw = d[1];
  }
  return w;
}

// Runs plane(p) for each of the planes of [N, C, ...] across threads.
template <typename F>
void for_each_plane(int64_t planes, int64_t work_per_plane, const F& plane) {
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work_per_plane));
  parallel_for(0, planes, grain, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) plane(p);
  });
}

}  // namespace ember::cpu
