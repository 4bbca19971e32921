// How a strided matrix looks to a BLAS: row-major with a leading dimension, or the
// transpose of one, or neither (then the caller copies it). Shared by the CPU
// kernels (row-major BLAS, lib/cpu/matmul.cpp) and the cuBLAS kernels
// (lib/cuda/blas/), which read a row-major matrix as the column-major transpose.
#pragma once
#include <algorithm>
#include <cstdint>

#include "ember/tensor.h"

namespace ember {

// A matrix [rows, cols] (element strides rs, cs) is row-major with leading dimension
// ld (trans false), or the transpose of a row-major [cols, rows] matrix with leading
// dimension ld (trans true); ok is false when it is neither. ld >= max(1, cols)
// (resp. rows), as BLAS requires.
struct BlasLayout {
  bool ok = false;
  bool trans = false;
  int64_t ld = 0;
};

inline BlasLayout blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  if ((cs == 1 || cols == 1) && (rows == 1 || rs >= std::max<int64_t>(1, cols)))
    return {true, false, rows == 1 ? std::max<int64_t>(1, cols) : rs};
  if ((rs == 1 || rows == 1) && (cols == 1 || cs >= std::max<int64_t>(1, rows)))
    return {true, true, cols == 1 ? std::max<int64_t>(1, rows) : cs};
  return {};
}

inline BlasLayout matrix_layout(const Tensor& t) {  // t: [batch, rows, cols]
  return blas_layout(t.size(1), t.size(2), t.stride(1), t.stride(2));
}

}  // namespace ember
