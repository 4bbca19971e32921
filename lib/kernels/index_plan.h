// The views the kernels of index and index_put_ loop over, on every device
// (Note [Advanced indexing geometry], ops/index_geometry.h): the index tensors
// become one int64 element offset per index position, then one loop over the
// result's shape reads (or writes) self at "unindexed part + offset".
#pragma once
#include "ember/tensor.h"
#include "ops/index_geometry.h"

namespace ember {

struct IndexViews {
  Tensor self_view;     // self over g.result_shape, stride 0 along the index dims
  Tensor offsets_view;  // the offsets over g.result_shape, stride 0 over the other dims
};

// offsets: contiguous int64 of g.index_shape, element offsets into self's storage
// from self's storage offset (sum over the indexed dims of index * stride).
IndexViews index_views(const Tensor& self, const Tensor& offsets, const AdvancedIndexGeometry& g);

}  // namespace ember
