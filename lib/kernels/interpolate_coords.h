// interpolate's coordinate rules for one output index (PyTorch's ATen
// UpSample.h), EMBER_HOST_DEVICE: the CPU's index tables
// (lib/kernels/interpolate_index.h) and the CUDA kernels (lib/cuda/nn/interpolate*.cu)
// compute every source index and weight with these same functions.
#pragma once
#include <math.h>

#include <cstdint>

#include "kernels/exact_rounding.h"
#include "ember/half.h"  // EMBER_HOST_DEVICE

namespace ember {

// PyTorch's (legacy, "buggy OpenCV") nearest: floor(o * scale) in float, scale
// = in / out or 1 / scale_factor. With `shortcuts` (PyTorch's 2-d kernel,
// nearest_idx) out == in is the identity and out == 2 in is o / 2.
EMBER_HOST_DEVICE inline int64_t nearest_source(int64_t o, int64_t in, int64_t out, float scale, bool shortcuts) {
  if (shortcuts && out == in) return o;
  if (shortcuts && out == 2 * in) return o >> 1;
  const int64_t i = static_cast<int64_t>(floorf(static_cast<float>(o) * scale));
  return i < in - 1 ? i : in - 1;
}

// Linear interpolation's two neighbours of output index o and their weights.
template <typename Acc>
struct LinearEntry {
  int64_t i0, i1;
  Acc w0, w1;
};

// scale: (in - 1) / (out - 1) (0 for out <= 1) with align_corners, else in / out
// or 1 / scale_factor (the caller's compute_scale).
template <typename Acc>
EMBER_HOST_DEVICE inline LinearEntry<Acc> linear_source(int64_t o, int64_t in, int64_t out, bool align_corners,
                                                        Acc scale) {
  if (out == in) return {o, o, Acc(1), Acc(0)};
  // Rounded step by step (no fused multiply-add), so both backends pick the same neighbours.
  Acc real = align_corners ? mul_rn(scale, static_cast<Acc>(o))
                           : add_rn(mul_rn(scale, static_cast<Acc>(o) + Acc(0.5)), Acc(-0.5));
  if (!align_corners && real < 0) real = 0;
  int64_t i = static_cast<int64_t>(floorf(static_cast<float>(real)));
  if (i > in - 1) i = in - 1;
  Acc lambda = real - static_cast<Acc>(i);
  lambda = lambda < Acc(0) ? Acc(0) : lambda;  // std::max(lambda, 0), then std::min(., 1)
  lambda = Acc(1) < lambda ? Acc(1) : lambda;
  return {i, i + (i < in - 1 ? 1 : 0), Acc(1) - lambda, lambda};
}

}  // namespace ember
