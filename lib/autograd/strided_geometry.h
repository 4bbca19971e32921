// Where a strided tensor's elements lie in its storage: what as_strided's
// derivative and CopySlices need to map a view into the memory of its base.
#pragma once
#include "ember/tensor.h"

namespace ember::autograd {

// A tensor's sizes, strides and storage offset (without the tensor).
struct Geometry {
  DimVector sizes, strides;
  int64_t offset = 0;
  explicit Geometry(const Tensor& t) : sizes(t.sizes()), strides(t.strides()), offset(t.storage_offset()) {}
};

// One past the last storage element that (sizes, strides, offset) reaches
// (offset itself if it reaches none).
int64_t storage_extent(const DimVector& sizes, const DimVector& strides, int64_t offset);
// False only if no two elements of (sizes, strides) can share memory (PyTorch's
// _maybe_overlapping_memory: strides sorted, each past the span of the smaller ones).
bool maybe_overlapping_memory(const DimVector& sizes, const DimVector& strides);

}  // namespace ember::autograd
