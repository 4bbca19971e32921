// Gradients of views that are ops of their own (see lib/ops/view_backward.cpp).
#pragma once
#include "ember/tensor.h"

namespace ember {

Tensor slice_backward(const Tensor& grad, const DimVector& input_sizes, int64_t dim, int64_t start,
                      int64_t end, int64_t step);
Tensor select_backward(const Tensor& grad, const DimVector& input_sizes, int64_t dim, int64_t index);

}  // namespace ember
