// Shape helpers for gradients.
#pragma once
#include "ember/tensor.h"

namespace ember::autograd {

// Whether a tensor of shape `from` broadcasts to shape `to`.
bool is_expandable_to(const DimVector& from, const DimVector& to);
// Sums grad over the dims that broadcasting added or stretched, giving `shape`.
Tensor sum_to(const Tensor& grad, const DimVector& shape);

}  // namespace ember::autograd
