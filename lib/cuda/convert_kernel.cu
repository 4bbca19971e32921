// The strided converting copy (strided_kernels.h): dst[i] = convert(src[i]) between
// any two dtypes, with the CPU's conversion rules (lib/kernels/dtype_dispatch.h: to bool
// is != 0; float16 and bfloat16 convert through float, rounding to nearest even; float to
// integer by lib/kernels/float_to_int.h, so NaN, +-inf and out-of-range values give the
// CPU's bits rather than the device's saturating conversion).
// One kernel per source dtype; the destination dtype is a switch inside it (the
// same branch for every thread), which keeps nvcc's work to ten kernels.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/cuda_check.h"
#include "cuda/strided_kernels.h"
#include "ember/error.h"
#include "kernels/float_to_int.h"

namespace ember::cuda {

namespace {

template <typename T>
constexpr bool is_reduced_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

__device__ inline float to_float(__half v) { return __half2float(v); }
__device__ inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename To, typename From>
__device__ inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_reduced_v<From>) {
    return convert<To>(to_float(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_same_v<To, __half>) {
    return __float2half_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    return float_to_int<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

template <typename To, typename From>
__device__ inline void store(void* dst, int64_t offset, From v) {
  static_cast<To*>(dst)[offset] = convert<To>(v);
}

template <typename From>
__device__ inline void store_as(DType dtype, void* dst, int64_t offset, From v) {
  switch (dtype) {
    case DType::Bool: return store<bool>(dst, offset, v);
    case DType::UInt8: return store<uint8_t>(dst, offset, v);
    case DType::Int8: return store<int8_t>(dst, offset, v);
    case DType::Int16: return store<int16_t>(dst, offset, v);
    case DType::Int32: return store<int32_t>(dst, offset, v);
    case DType::Int64: return store<int64_t>(dst, offset, v);
    case DType::Float16: return store<__half>(dst, offset, v);
    case DType::BFloat16: return store<__nv_bfloat16>(dst, offset, v);
    case DType::Float32: return store<float>(dst, offset, v);
    case DType::Float64: return store<double>(dst, offset, v);
  }
}

template <typename From>
__global__ void strided_convert_kernel(void* dst, DType dst_dtype, const From* src,
                                       StridedGeometry g, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t d, s;
    strided_offsets(g, i, d, s);
    store_as(dst_dtype, dst, d, src[s]);
  }
}

// The same through the elementwise kernels' OffsetCalculator (strided_kernels.h).
template <typename From>
__global__ void convert_kernel(OffsetCalculator<2> calc, char* dst, DType dst_dtype, const char* src,
                               uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int64_t off[2];
    calc.offsets(i, off);
    store_as(dst_dtype, dst + off[0], 0, *reinterpret_cast<const From*>(src + off[1]));
  }
}

template <typename From>
void launch(void* dst, DType dst_dtype, const void* src, const StridedGeometry& g, int64_t n,
            void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  ElementwiseGeometry eg;
  if (!as_elementwise(g, dst, itemsize(dst_dtype), src, sizeof(From), eg)) {
    strided_convert_kernel<From><<<strided_blocks(n), kStridedThreads, 0, s>>>(
        dst, dst_dtype, static_cast<const From*>(src), g, n);
    return;
  }
  for_each_32bit_part(eg, [&](const ElementwiseGeometry& part) {
    const auto count = static_cast<uint32_t>(part.numel());
    convert_kernel<From><<<strided_blocks(count), kStridedThreads, 0, s>>>(
        make_offset_calculator<2>(part), part.base[0], dst_dtype, part.base[1], count);
  });
}

}  // namespace

void launch_strided_convert(void* dst, DType dst_dtype, const void* src, DType src_dtype,
                            const StridedGeometry& geometry, int64_t numel, void* stream) {
  if (numel == 0) return;
  auto go = [&](auto zero) {
    launch<decltype(zero)>(dst, dst_dtype, src, geometry, numel, stream);
  };
  switch (src_dtype) {
    case DType::Bool: go(bool{}); break;
    case DType::UInt8: go(uint8_t{}); break;
    case DType::Int8: go(int8_t{}); break;
    case DType::Int16: go(int16_t{}); break;
    case DType::Int32: go(int32_t{}); break;
    case DType::Int64: go(int64_t{}); break;
    case DType::Float16: go(__half{}); break;
    case DType::BFloat16: go(__nv_bfloat16{}); break;
    case DType::Float32: go(float{}); break;
    case DType::Float64: go(double{}); break;
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ember::cuda
