// Pooling windows, shared by the CPU kernels (lib/cpu/pool*.cpp) and the CUDA
// kernels (lib/cuda/norm/pool*.cu), so that both backends pool the same positions
// and divide by the same counts (PyTorch's rules).
#pragma once
#include <cstdint>

#include "ember/half.h"  // EMBER_HOST_DEVICE

namespace ember {

struct Window2d {
  int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1;
};

// The window of a pooling op's typed Args (MaxPool2dArgs, AvgPool2dBackwardArgs, ...):
// its kernel_size, stride and padding pairs, and its dilation where the op has one.
template <class Args>
Window2d window_from(const Args& a) {
  Window2d w{a.kernel_size[0], a.kernel_size[1], a.stride[0], a.stride[1], a.padding[0], a.padding[1]};
  if constexpr (requires { a.dilation; }) {
    w.dh = a.dilation[0];
    w.dw = a.dilation[1];
  }
  return w;
}

// Adaptive pooling: output index o of out covers input [start, end).
EMBER_HOST_DEVICE inline int64_t adaptive_start(int64_t o, int64_t out, int64_t in) { return (o * in) / out; }
EMBER_HOST_DEVICE inline int64_t adaptive_end(int64_t o, int64_t out, int64_t in) {
  return ((o + 1) * in + out - 1) / out;
}

// The part of an average-pool window that lies inside the H x W input,
// [h0, h1) x [w0, w1), and what PyTorch divides its sum by: divisor_override
// (if not 0), else the window's size clipped to the padded input
// (count_include_pad) or to the input.
struct AvgWindow {
  int64_t h0, h1, w0, w1, divisor;
  EMBER_HOST_DEVICE bool empty() const { return h0 >= h1 || w0 >= w1; }
};

EMBER_HOST_DEVICE inline AvgWindow avg_window(const Window2d& w, int64_t oh, int64_t ow, int64_t H, int64_t W,
                                              bool count_include_pad, int64_t divisor_override) {
  const int64_t hs = oh * w.sh - w.ph, he = hs + w.kh < H + w.ph ? hs + w.kh : H + w.ph;
  const int64_t ws = ow * w.sw - w.pw, we = ws + w.kw < W + w.pw ? ws + w.kw : W + w.pw;
  AvgWindow a{hs > 0 ? hs : 0, he < H ? he : H, ws > 0 ? ws : 0, we < W ? we : W, 0};
  a.divisor = divisor_override ? divisor_override
              : count_include_pad ? (he - hs) * (we - ws)
                                  : (a.h1 - a.h0) * (a.w1 - a.w0);
  return a;
}

}  // namespace ember
