// Argument helpers shared by the convolution op functions (lib/ops/conv.cpp)
// and their backward primitives (lib/ops/conv_backward.cpp).
#pragma once
#include <string>

#include "ember/error.h"
#include "ember/tensor.h"

namespace ember::conv_checks {

// A size argument (stride, padding, ...) as one value per spatial dim.
inline DimVector per_dim(const char* op, const char* name, const IntList& v, int64_t nd) {
  EMBER_CHECK(v.size() == 1 || static_cast<int64_t>(v.size()) == nd, op, ": expected ", name,
              " to be a single integer value or a list of ", nd,
              " values to match the convolution dimensions, but got ", name, "=",
              shape_str(DimVector(v.begin(), v.end())));
  // Bounded so that the output-size arithmetic (stride * size, 2 * padding,
  // dilation * kernel) cannot overflow, whatever a caller or a model file passes.
  constexpr int64_t kMax = (int64_t(1) << 31) - 1;
  for (int64_t x : v)
    EMBER_CHECK(x >= -kMax && x <= kMax, op, ": ", name, " values must be at most 2^31 - 1 in "
                "magnitude, got ", name, "=", shape_str(DimVector(v.begin(), v.end())));
  return v.size() == 1 ? DimVector(nd, v[0]) : DimVector(v.begin(), v.end());
}

inline bool all_positive(const DimVector& v) {
  for (int64_t x : v)
    if (x <= 0) return false;
  return true;
}

inline bool all_non_negative(const DimVector& v) {
  for (int64_t x : v)
    if (x < 0) return false;
  return true;
}

inline std::string sizes_x(const DimVector& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? " x " : "") + std::to_string(v[i]);
  return s;
}

}  // namespace ember::conv_checks
