// Argument checks of the 2-d pooling windows, shared by the pooling op
// functions (lib/ops/pool.cpp) and their backward primitives
// (lib/ops/pool_backward.cpp), with PyTorch's rules and messages.
#pragma once
#include "ember/error.h"
#include "ember/tensor.h"
#include "ops/pool_shape.h"

namespace ember {

struct PoolWindow {
  DimVector kernel, stride, padding, dilation;  // (h, w) each
};

// A pooling size argument as (h, w); an empty list takes `fallback`.
inline DimVector pool_pair(const char* op, const char* name, const IntList& v, const DimVector& fallback) {
  if (v.empty() && !fallback.empty()) return fallback;
  EMBER_CHECK(v.size() == 1 || v.size() == 2, op, ": ", name,
              " must either be a single int, or a tuple of two ints");
  return v.size() == 1 ? DimVector{v[0], v[0]} : DimVector{v[0], v[1]};
}

// The window arguments as pairs, checked; an empty stride is the kernel size.
inline PoolWindow pool_window(const char* op, const IntList& kernel_size, const IntList& stride,
                              const IntList& padding, const IntList& dilation) {
  PoolWindow a;
  a.kernel = pool_pair(op, "kernel_size", kernel_size, {});
  a.stride = pool_pair(op, "stride", stride, a.kernel);
  a.padding = pool_pair(op, "padding", padding, {});
  a.dilation = pool_pair(op, "dilation", dilation, {});
  // Bounded so that the window arithmetic here and in the kernels ((kernel - 1) *
  // dilation, size + 2 * padding) cannot overflow, whatever a caller or a model
  // file passes; no real window comes near.
  constexpr int64_t kMax = (int64_t(1) << 31) - 1;
  for (const DimVector* v : {&a.kernel, &a.stride, &a.padding, &a.dilation})
    EMBER_CHECK((*v)[0] <= kMax && (*v)[1] <= kMax, op, ": kernel_size, stride, padding and "
                "dilation must be at most 2^31 - 1, got kernel_size=", shape_str(a.kernel),
                " stride=", shape_str(a.stride), " padding=", shape_str(a.padding),
                " dilation=", shape_str(a.dilation));
  EMBER_CHECK(a.kernel[0] > 0 && a.kernel[1] > 0, op,
              ": kernel size should be greater than zero, but got kH: ", a.kernel[0], " kW: ", a.kernel[1]);
  EMBER_CHECK(a.stride[0] > 0 && a.stride[1] > 0, op,
              ": stride should be greater than zero, but got dH: ", a.stride[0], " dW: ", a.stride[1]);
  EMBER_CHECK(a.dilation[0] > 0 && a.dilation[1] > 0, op,
              ": dilation should be greater than zero, but got dilationH: ", a.dilation[0],
              " dilationW: ", a.dilation[1]);
  EMBER_CHECK(a.padding[0] >= 0 && a.padding[1] >= 0, op, ": padding must be non-negative, but got ",
              shape_str(a.padding));
  for (int d = 0; d < 2; ++d)
    EMBER_CHECK(a.padding[d] <= ((a.kernel[d] - 1) * a.dilation[d] + 1) / 2, op,
                ": pad should be at most half of effective kernel size, but got pad=", a.padding[d],
                ", kernel_size=", a.kernel[d], " and dilation=", a.dilation[d]);
  return a;
}

// The output plane (oh, ow) of a window over c planes of h x w; at least 1 x 1.
inline DimVector pooled_plane(const char* op, const PoolWindow& a, int64_t c, int64_t h, int64_t w,
                              bool ceil_mode) {
  int64_t oh = pooling_output_size(h, a.kernel[0], a.padding[0], a.stride[0], a.dilation[0], ceil_mode);
  int64_t ow = pooling_output_size(w, a.kernel[1], a.padding[1], a.stride[1], a.dilation[1], ceil_mode);
  EMBER_CHECK(oh >= 1 && ow >= 1, op, ": Given input size: (", c, "x", h, "x", w,
              "). Calculated output size: (", c, "x", oh, "x", ow, "). Output size is too small");
  return {oh, ow};
}

}  // namespace ember
