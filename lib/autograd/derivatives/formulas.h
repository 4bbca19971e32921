// Helpers shared by the derivative formulas (derivatives/*.cpp). For reductions,
// `dims` is the op's dims attr: wrapped and sorted, all dims when the user gave
// none (so empty only for a 0-dim input).
#pragma once
#include "ember/tensor.h"

namespace ember::autograd {

// The gradient (or result) of a reduction over dims, brought back to the input's shape.
Tensor expand_reduced(const Tensor& grad, const DimVector& input_sizes, const DimVector& dims,
                      bool keepdim);
// The number of elements each result reduces.
int64_t reduced_count(const DimVector& sizes, const DimVector& dims);
// Sizes as the IntList that reshape takes.
inline IntList to_list(const DimVector& sizes) { return IntList(sizes.begin(), sizes.end()); }
// dims as the IntList that keepdim reductions in formulas take.
IntList reduced_dims(const DimVector& dims);
// hit (bool, the input's shape) / the number of hits over dims, as `dtype`: a
// gradient shared evenly among tied elements (amax, the inf-norm).
Tensor share_evenly(const Tensor& hit, const DimVector& dims, DType dtype);

// x / d, taken as 0 where d is 0 (through a safe denominator, so that the
// second derivative is not nan there either).
Tensor div_or_zero(const Tensor& x, const Tensor& d);

}  // namespace ember::autograd
