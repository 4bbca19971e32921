// Shared pieces of the 2-d pooling kernels (pool.cpp, pool_backward.cpp): the
// window attributes, the loop over planes and PyTorch's average-pool windows.
#pragma once
#include <algorithm>

#include "cpu/parallel.h"
#include "dispatch/op_call.h"
#include "ops/pool_shape.h"

namespace ember::cpu {

struct Window2d {
  int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1;
};

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

// The part of an average-pool window that lies inside the H x W input,
// [h0, h1) x [w0, w1), and what PyTorch divides its sum by: divisor_override
// (if not 0), else the window's size clipped to the padded input
// (count_include_pad) or to the input.
struct AvgWindow {
  int64_t h0, h1, w0, w1, divisor;
  bool empty() const { return h0 >= h1 || w0 >= w1; }
};

inline AvgWindow avg_window(const Window2d& w, int64_t oh, int64_t ow, int64_t H, int64_t W,
                            bool count_include_pad, int64_t divisor_override) {
  const int64_t hs = oh * w.sh - w.ph, he = std::min(hs + w.kh, H + w.ph);
  const int64_t ws = ow * w.sw - w.pw, we = std::min(ws + w.kw, W + w.pw);
  AvgWindow a{std::max<int64_t>(hs, 0), std::min(he, H), std::max<int64_t>(ws, 0), std::min(we, W), 0};
  a.divisor = divisor_override ? divisor_override
              : count_include_pad ? (he - hs) * (we - ws)
                                  : (a.h1 - a.h0) * (a.w1 - a.w0);
  return a;
}

}  // namespace ember::cpu
