// The gradient mask of the nn backward ops (conv, the norms, embedding): which
// of their outputs the caller needs, read alike by every device's kernels.
#pragma once
#include "dispatch/op_call.h"

namespace ember {

// Which of (grad_input, grad_weight, grad_bias) to compute: a `mask` attr.
struct GradFlags {
  bool input, weight, bias;
};

inline GradFlags grad_flags(const Attr& a) {
  const DimVector& m = a.to_ints();
  return {m[0] != 0, m[1] != 0, m[2] != 0};
}

}  // namespace ember
