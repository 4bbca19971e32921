// interpolate's coordinate rules (PyTorch's ATen UpSample.h), shared by the
// forward (interpolate.cpp) and backward (interpolate_backward.cpp) kernels so
// that the gradient scatters exactly where the forward gathered.
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "dispatch/op_call.h"

namespace ember::cpu {

// scale = input / output, or 1 / scale_factor when the user gave one.
template <typename T>
inline T compute_scale(int64_t in, int64_t out, const Attr& scale) {
  if (!scale.is_none() && scale.to_double() > 0) return static_cast<T>(1.0 / scale.to_double());
  return static_cast<T>(in) / static_cast<T>(out);
}

// PyTorch's (legacy, "buggy OpenCV") nearest: floor(o * scale) in float.
// Its 2-d kernel (nearest_idx) first maps out == in to the identity and
// out == 2 in to o / 2; its 1-d and 3-d kernels do not. That shows only with a
// scale_factor that leaves a dim's size unchanged (in 2, scale 1.3: out 2,
// indices [0, 1] in 2-d but [0, 0] in 1-d and 3-d), and ember follows it.
inline std::vector<int64_t> nearest_indices(int64_t in, int64_t out, const Attr& scale, bool shortcuts) {
  std::vector<int64_t> idx(static_cast<size_t>(out));
  const float s = compute_scale<float>(in, out, scale);
  for (int64_t o = 0; o < out; ++o) {
    if (shortcuts && out == in) idx[o] = o;
    else if (shortcuts && out == 2 * in) idx[o] = o >> 1;
    else idx[o] = std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
  }
  return idx;
}

template <typename Acc>
struct LinearTable {
  std::vector<int64_t> i0, i1;
  std::vector<Acc> w0, w1;
};

template <typename Acc>
inline LinearTable<Acc> linear_table(int64_t in, int64_t out, bool align_corners, const Attr& scale) {
  LinearTable<Acc> t;
  t.i0.resize(out);
  t.i1.resize(out);
  t.w0.resize(out);
  t.w1.resize(out);
  const Acc s = align_corners ? (out > 1 ? static_cast<Acc>(in - 1) / static_cast<Acc>(out - 1) : Acc(0))
                              : compute_scale<Acc>(in, out, scale);
  for (int64_t o = 0; o < out; ++o) {
    if (out == in) {
      t.i0[o] = t.i1[o] = o;
      t.w0[o] = 1;
      t.w1[o] = 0;
      continue;
    }
    Acc real = align_corners ? s * static_cast<Acc>(o)
                             : s * (static_cast<Acc>(o) + Acc(0.5)) - Acc(0.5);
    if (!align_corners && real < 0) real = 0;
    const int64_t i = std::min(static_cast<int64_t>(std::floor(static_cast<float>(real))), in - 1);
    const Acc lambda = std::min(std::max(real - static_cast<Acc>(i), Acc(0)), Acc(1));
    t.i0[o] = i;
    t.i1[o] = i + (i < in - 1 ? 1 : 0);
    t.w1[o] = lambda;
    t.w0[o] = Acc(1) - lambda;
  }
  return t;
}

}  // namespace ember::cpu
