// Host side of the CUDA reductions: an input seen as [outer, R, inner] (R: the
// reduced values of one output, outer * inner outputs in the kept dims' row-major
// order), made contiguous first, and permuted when the reduced dims are not one run.
#pragma once
#include <cstdint>

#include "ember/tensor.h"

namespace ember::cuda::reduce {

struct ReduceShape {
  int64_t outer, R, inner;
};

struct ReduceInput {
  Tensor x;  // contiguous, on the input's device
  ReduceShape shape;
};

// self reduced over dims (wrapped, sorted, unique; empty: nothing reduced, one
// value per output). Size-1 dims are ignored; when the reduced dims (of size > 1)
// are consecutive, x is self.contiguous() and no data moves beyond that; otherwise
// the kept dims are moved in front of the reduced ones (a copy), so that R is the
// flat row-major position over the reduced dims in both cases (argmax's index).
ReduceInput prepare_reduce(const Tensor& self, const DimVector& dims);

// The tensor along one dim `dim` as [outer, D, inner] (scans, softmax); 0-dim: [1, 1, 1].
ReduceShape along_dim(const Tensor& self, int64_t dim);

}  // namespace ember::cuda::reduce
