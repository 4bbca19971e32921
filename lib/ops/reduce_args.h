// Argument helpers shared by the reduce group's op functions (lib/ops/reduce*.cpp)
// and its kernels (which allocate their outputs from the same shape rule).
#pragma once
#include "dispatch/op_call.h"
#include "ember/tensor.h"

namespace ember::reduce {

// The wrapped, sorted dims of a reduction; every dim when `dims` is empty.
// Throws IndexError for a dim out of range, Error for a repeated dim.
DimVector normalize_dims(const Tensor& self, const IntList& dims, const char* op);
// One dim, wrapped (0-dim tensors accept 0 and -1).
int64_t normalize_dim(const Tensor& self, int64_t dim, const char* op);

// Dispatches op on self with attrs and returns its (first) output.
Tensor run(OpId op, const Tensor& self, SmallVector<Attr, 4> attrs);

// The shape of a reduction's result: reduced dims removed, or kept with size 1.
inline DimVector reduced_shape(const DimVector& sizes, const DimVector& dims, bool keepdim) {
  DimVector out;
  size_t k = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    bool reduced = k < dims.size() && dims[k] == static_cast<int64_t>(d);
    if (reduced) ++k;
    if (!reduced) out.push_back(sizes[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

// The number of elements each output reduces.
inline int64_t reduced_numel(const DimVector& sizes, const DimVector& dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    if (d < static_cast<int64_t>(sizes.size())) n *= sizes[d];
  return n;
}

}  // namespace ember::reduce
