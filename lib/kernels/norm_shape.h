// How layer_norm (and its backward) sees its input, on every device.
#pragma once
#include "ember/tensor.h"

namespace ember {

// layer_norm's view of x: `rows` rows of the `n` values of the last
// `normalized_dims` dims, and the statistics' shape (the batch dims, then ones).
struct LayerNormShape {
  int64_t rows = 1, n = 1;
  DimVector stat_shape;
};
inline LayerNormShape layer_norm_shape(const Tensor& x, size_t normalized_dims) {
  LayerNormShape s;
  const int64_t axis = x.dim() - static_cast<int64_t>(normalized_dims);
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d < axis) {
      s.rows *= x.size(d);
      s.stat_shape.push_back(x.size(d));
    } else {
      s.n *= x.size(d);
      s.stat_shape.push_back(1);
    }
  }
  return s;
}

}  // namespace ember
