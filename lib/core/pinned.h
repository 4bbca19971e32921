// Tensors in page-locked host memory (lib/core/tensor_device.cpp).
#pragma once
#include "ember/tensor.h"

namespace ember {

// An uninitialized contiguous CPU tensor in ember's pinned memory (needs a GPU).
Tensor empty_pinned(const DimVector& sizes, DType dtype);

}  // namespace ember
