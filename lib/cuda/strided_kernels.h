// The two simple CUDA kernels the runtime needs before the op kernels exist: a
// strided copy and a strided fill. They move raw elements of 1, 2, 4 or 8 bytes,
// so one instantiation per element size serves every dtype (no conversion).
#pragma once
#include <cstddef>
#include <cstdint>

namespace ember::cuda {

// Tensors with more dims than this (after merging dims that are contiguous
// together) are not supported by these kernels.
constexpr int kMaxStridedDims = 16;

// dst[i] (and src[i]) for the i-th element in row-major order of `sizes`, strides in
// elements. src_strides is unused by the fill.
struct StridedGeometry {
  int ndim = 0;
  int64_t sizes[kMaxStridedDims];
  int64_t dst_strides[kMaxStridedDims];
  int64_t src_strides[kMaxStridedDims];
};

// `stream` is a cudaStream_t; both queue the work on it and return.
void launch_strided_copy(void* dst, const void* src, size_t element_size,
                         const StridedGeometry& geometry, int64_t numel, void* stream);
void launch_strided_fill(void* dst, uint64_t value_bits, size_t element_size,
                         const StridedGeometry& geometry, int64_t numel, void* stream);

}  // namespace ember::cuda
