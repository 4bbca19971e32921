// Shape helpers for gradients.
#pragma once
#include "ember/tensor.h"

namespace ember::autograd {

// Whether a tensor of shape `from` broadcasts to shape `to`.
bool is_expandable_to(const DimVector& from, const DimVector& to);
// Sums grad over the dims that broadcasting added or stretched, giving `shape`.
Tensor sum_to(const Tensor& grad, const DimVector& shape);
// One past the last storage element that (sizes, strides, offset) reaches
// (offset itself if it reaches none).
int64_t storage_extent(const DimVector& sizes, const DimVector& strides, int64_t offset);
// False only if no two elements of (sizes, strides) can share memory (PyTorch's
// _maybe_overlapping_memory: strides sorted, each past the span of the smaller ones).
bool maybe_overlapping_memory(const DimVector& sizes, const DimVector& strides);

}  // namespace ember::autograd
