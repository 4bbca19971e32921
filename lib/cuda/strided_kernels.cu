// The strided copy and fill kernels (strided_kernels.h): one thread per element in a
// grid-stride loop. The element's byte offsets come from the elementwise kernels'
// OffsetCalculator (32-bit index, division by multiplication); geometries with more
// dims than it holds take the plain kernels (a 64-bit division per dim).
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

template <typename T>
__global__ void copy_kernel(OffsetCalculator<2> calc, char* dst, const char* src, uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int64_t off[2];
    calc.offsets(i, off);
    *reinterpret_cast<T*>(dst + off[0]) = *reinterpret_cast<const T*>(src + off[1]);
  }
}

template <typename T>
__global__ void fill_kernel(OffsetCalculator<1> calc, char* dst, T value, uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int64_t off[1];
    calc.offsets(i, off);
    *reinterpret_cast<T*>(dst + off[0]) = value;
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
  auto s = static_cast<cudaStream_t>(stream);
  ElementwiseGeometry g;
  with_element_type(element_size, [&](auto zero) {
    using T = decltype(zero);
    if (!as_elementwise(geometry, dst, element_size, src, element_size, g)) {
      strided_copy_kernel<T><<<strided_blocks(numel), kStridedThreads, 0, s>>>(
          static_cast<T*>(dst), static_cast<const T*>(src), geometry, numel);
      return;
    }
    for_each_32bit_part(g, [&](const ElementwiseGeometry& part) {
      const auto n = static_cast<uint32_t>(part.numel());
      copy_kernel<T><<<strided_blocks(n), kStridedThreads, 0, s>>>(make_offset_calculator<2>(part), part.base[0],
                                                                    part.base[1], n);
    });
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void launch_strided_fill(void* dst, uint64_t value_bits, size_t element_size,
                         const StridedGeometry& geometry, int64_t numel, void* stream) {
  if (numel == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  ElementwiseGeometry g;
  with_element_type(element_size, [&](auto zero) {
    using T = decltype(zero);
    // The low element_size bytes of value_bits hold the value (little-endian hosts).
    const auto value = static_cast<T>(value_bits);
    if (!as_elementwise(geometry, dst, element_size, nullptr, 0, g)) {
      strided_fill_kernel<T><<<strided_blocks(numel), kStridedThreads, 0, s>>>(static_cast<T*>(dst), value,
                                                                                geometry, numel);
      return;
    }
    for_each_32bit_part(g, [&](const ElementwiseGeometry& part) {
      const auto n = static_cast<uint32_t>(part.numel());
      fill_kernel<T><<<strided_blocks(n), kStridedThreads, 0, s>>>(make_offset_calculator<1>(part), part.base[0],
                                                                    value, n);
    });
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ember::cuda
