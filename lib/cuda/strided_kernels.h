// The simple CUDA kernels the runtime needs before the op kernels exist: a strided
// copy and a strided fill, which move raw elements of 1, 2, 4 or 8 bytes (one
// instantiation per element size serves every dtype), and a strided converting copy
// between any two dtypes (convert_kernel.cu).
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>

#include "cuda/offset_calculator.h"
#include "ember/dtype.h"

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
void launch_strided_convert(void* dst, DType dst_dtype, const void* src, DType src_dtype,
                            const StridedGeometry& geometry, int64_t numel, void* stream);

// g as the elementwise kernels describe a launch (byte strides; operand 0 the
// destination, operand 1 the source unless src is null, as for a fill), so these
// kernels share their OffsetCalculator: 32-bit indices and a division by
// multiplication per dim, instead of a 64-bit division per dim and element. False
// when g has more dims than an OffsetCalculator holds (the plain kernels take those).
inline bool as_elementwise(const StridedGeometry& g, void* dst, size_t dst_element_size, const void* src,
                           size_t src_element_size, ElementwiseGeometry& out) {
  if (g.ndim > kMaxElementwiseDims) return false;
  out = ElementwiseGeometry{};
  for (int d = 0; d < g.ndim; ++d) {
    out.sizes.push_back(g.sizes[d]);
    SmallVector<int64_t, kInlineOperands> strides;
    strides.push_back(g.dst_strides[d] * static_cast<int64_t>(dst_element_size));
    if (src) strides.push_back(g.src_strides[d] * static_cast<int64_t>(src_element_size));
    out.strides.push_back(std::move(strides));
  }
  out.base.push_back(static_cast<char*>(dst));
  if (src) out.base.push_back(const_cast<char*>(static_cast<const char*>(src)));
  return true;
}

#ifdef __CUDACC__
// Shared by the .cu files: threads per block, blocks for n elements (a grid-stride
// loop covers the rest), and the offsets (in elements) of the i-th element.
constexpr int kStridedThreads = 256;

inline unsigned strided_blocks(int64_t n) {
  constexpr int64_t kMaxBlocks = 65535;
  int64_t b = (n + kStridedThreads - 1) / kStridedThreads;
  return static_cast<unsigned>(b < kMaxBlocks ? b : kMaxBlocks);
}

__device__ inline void strided_offsets(const StridedGeometry& g, int64_t i, int64_t& dst,
                                       int64_t& src) {
  dst = 0;
  src = 0;
  for (int d = g.ndim - 1; d >= 0; --d) {
    int64_t index = i % g.sizes[d];
    i /= g.sizes[d];
    dst += index * g.dst_strides[d];
    src += index * g.src_strides[d];
  }
}
#endif

}  // namespace ember::cuda
