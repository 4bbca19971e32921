// The strided copy and fill kernels (strided_kernels.h): one thread per element in a
// grid-stride loop; the element's offsets come from dividing its linear index by
// the sizes (strided_offsets). Simple rather than fast: the op kernels of issue 5
// bring vectorized ones.
#include <cuda_runtime.h>

#include "cuda/cuda_check.h"
#include "cuda/strided_kernels.h"
#include "ember/error.h"

namespace ember::cuda {

namespace {

template <typename T>
__global__ void strided_copy_kernel(T* dst, const T* src, StridedGeometry g, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t d, s;
    strided_offsets(g, i, d, s);
    dst[d] = src[s];
  }
}

template <typename T>
__global__ void strided_fill_kernel(T* dst, T value, StridedGeometry g, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t d, s;
    strided_offsets(g, i, d, s);
    dst[d] = value;
  }
}

// Calls f(T{}) with T the unsigned integer of `element_size` bytes.
template <typename F>
void with_element_type(size_t element_size, const F& f) {
  switch (element_size) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
  }
  throw Error(::ember::detail::str("CUDA strided kernels: unsupported element size ", element_size));
}

}  // namespace

void launch_strided_copy(void* dst, const void* src, size_t element_size,
                         const StridedGeometry& geometry, int64_t numel, void* stream) {
  if (numel == 0) return;
  with_element_type(element_size, [&](auto zero) {
    using T = decltype(zero);
    strided_copy_kernel<T><<<strided_blocks(numel), kStridedThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<T*>(dst), static_cast<const T*>(src), geometry, numel);
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void launch_strided_fill(void* dst, uint64_t value_bits, size_t element_size,
                         const StridedGeometry& geometry, int64_t numel, void* stream) {
  if (numel == 0) return;
  with_element_type(element_size, [&](auto zero) {
    using T = decltype(zero);
    // The low element_size bytes of value_bits hold the value (little-endian hosts).
    strided_fill_kernel<T><<<strided_blocks(numel), kStridedThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<T*>(dst), static_cast<T>(value_bits), geometry, numel);
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ember::cuda
