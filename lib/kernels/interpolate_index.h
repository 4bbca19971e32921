// interpolate's index tables (coordinate rules: kernels/interpolate_coords.h), shared by the
// forward (interpolate.cpp) and backward (interpolate_backward.cpp) kernels so
// that the gradient scatters exactly where the forward gathered.
#pragma once
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "kernels/interpolate_coords.h"

namespace ember {

// scale = input / output, or 1 / scale_factor when the user gave one.
template <typename T>
inline T compute_scale(int64_t in, int64_t out, std::optional<double> scale) {
  if (scale && *scale > 0) return static_cast<T>(1.0 / *scale);
  return static_cast<T>(in) / static_cast<T>(out);
}

// The source index of every output index (kernels/interpolate_coords.h); the
// shortcuts are those of PyTorch's 2-d kernel only. That shows only with a
// scale_factor that leaves a dim's size unchanged (in 2, scale 1.3: out 2,
// indices [0, 1] in 2-d but [0, 0] in 1-d and 3-d), and ember follows it.
inline std::vector<int64_t> nearest_indices(int64_t in, int64_t out, std::optional<double> scale, bool shortcuts) {
  std::vector<int64_t> idx(static_cast<size_t>(out));
  const float s = compute_scale<float>(in, out, scale);
  for (int64_t o = 0; o < out; ++o) idx[o] = nearest_source(o, in, out, s, shortcuts);
  return idx;
}

template <typename Acc>
struct LinearTable {
  std::vector<int64_t> i0, i1;
  std::vector<Acc> w0, w1;
};

// linear's scale: (in - 1) / (out - 1) with align_corners, else compute_scale.
template <typename Acc>
inline Acc linear_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  return align_corners ? (out > 1 ? static_cast<Acc>(in - 1) / static_cast<Acc>(out - 1) : Acc(0))
                       : compute_scale<Acc>(in, out, scale);
}

template <typename Acc>
inline LinearTable<Acc> linear_table(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  LinearTable<Acc> t;
  t.i0.resize(out);
  t.i1.resize(out);
  t.w0.resize(out);
  t.w1.resize(out);
  const Acc s = linear_scale<Acc>(in, out, align_corners, scale);
  for (int64_t o = 0; o < out; ++o) {
    const LinearEntry<Acc> e = linear_source<Acc>(o, in, out, align_corners, s);
    t.i0[o] = e.i0;
    t.i1[o] = e.i1;
    t.w0[o] = e.w0;
    t.w1[o] = e.w1;
  }
  return t;
}

}  // namespace ember
