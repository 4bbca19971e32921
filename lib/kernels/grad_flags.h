// The gradient mask of the nn backward ops (conv, the norms, embedding): which
// of their outputs the caller needs, and the parameters' gradient dtype, read
// alike by every device's kernels.
#pragma once
#include "dispatch/op_call.h"

namespace ember {

// Which of (grad_input, grad_weight, grad_bias) to compute: an `output_mask` attr.
struct GradFlags {
  bool input, weight, bias;
};

inline GradFlags grad_flags(const DimVector& output_mask) {
  return {output_mask[0] != 0, output_mask[1] != 0, output_mask[2] != 0};
}

// The dtype of a parameter's gradient: the parameter's, or the input's when the
// parameter is None (a gradient asked for an absent affine parameter).
inline DType param_grad_dtype(const Tensor& param, const Tensor& input) {
  return param.defined() ? param.dtype() : input.dtype();
}

}  // namespace ember
