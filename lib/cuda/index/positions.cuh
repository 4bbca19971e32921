// Shared by the indexing kernels of lib/cuda/index/ and lib/cuda/sort/: a launch
// of f over every position of a shape with one pointer per operand, an index
// check that wraps negative indices, and the atomic read-modify-writes of the
// accumulating scatters.
#pragma once
#include <array>
#include <cstring>
#include <vector>

#include "kernels/element_types.h"
#include "kernels/int_math.h"
#include "kernels/dtype_dispatch.h"  // with_element_size
#include "kernels/restride.h"
#include "cuda/device_error.h"
#include "cuda/launch.h"
#include "cuda/offset_calculator.h"
#include "ember/ops/factories.h"

// EMBER_DISPATCH_ELEMENT_SIZE(bytes, [&] { ... elem_t ... }): for kernels that only
// move elements, elem_t is an unsigned type of that size (one instantiation per
// size serves every dtype). A macro, not with_element_size: nvcc does not
// allow an extended (device) lambda inside a generic lambda.
#define EMBER_ELEMENT_SIZE_CASE(bytes, type, ...) \
  case bytes: {                                   \
    using elem_t = type;                          \
    __VA_ARGS__();                                \
    break;                                        \
  }
#define EMBER_DISPATCH_ELEMENT_SIZE(size, ...)         \
  switch (size) {                                      \
    EMBER_ELEMENT_SIZE_CASE(1, uint8_t, __VA_ARGS__)   \
    EMBER_ELEMENT_SIZE_CASE(2, uint16_t, __VA_ARGS__)  \
    EMBER_ELEMENT_SIZE_CASE(4, uint32_t, __VA_ARGS__)  \
    default: {                                         \
      using elem_t = uint64_t;                         \
      __VA_ARGS__();                                   \
    }                                                  \
  }

namespace ember::cuda {

template <int N>
struct OperandBases {
  char* p[N];
};

template <int N, typename F>
__global__ void positions_kernel(OffsetCalculator<N> calc, OperandBases<N> bases, uint32_t n, F f) {
  // n < 2^31 and the grid has at most 2^23 blocks of 256 threads here, so i + stride
  // cannot wrap around 2^32.
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int64_t off[N];
    calc.offsets(i, off);
    char* p[N];
#pragma unroll
    for (int k = 0; k < N; ++k) p[k] = bases.p[k] + off[k];
    f(p);
  }
}

// Queues f(p) on `stream` for every position of `sizes` (row-major), where p[k]
// points at operand k's element: bases[k] + sum over dims of index * strides[k][d]
// (strides in bytes, 0 where the operand broadcasts, possibly negative). f is an
// __device__ lambda taking char* const (&)[N]. Positions are split into launches of
// fewer than 2^31 (32-bit offsets math, offset_calculator.h).
template <int N, typename F>
void for_each_position(cudaStream_t stream, const DimVector& sizes,
                       const std::array<ByteStrides, N>& strides,
                       const std::array<char*, N>& bases, const F& f) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0) return;
  ElementwiseGeometry g = coalesce(GeometrySizes(sizes.begin(), sizes.end()),
                                   OperandStrides(strides.begin(), strides.end()),
                                   OperandBytes(bases.begin(), bases.end()));
  for_each_32bit_part(g, [&](const ElementwiseGeometry& part) {
    OperandBases<N> b;
    for (int k = 0; k < N; ++k) b.p[k] = part.base[k];
    const uint32_t n = static_cast<uint32_t>(part.numel());
    positions_kernel<N, F><<<blocks_for(n), kBlockThreads, 0, stream>>>(make_offset_calculator<N>(part),
                                                                       b, n, f);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

// t's strides in bytes over its own dims with dim `zero` (-1: none) set to 0.
inline ByteStrides byte_strides(const Tensor& t, int64_t zero = -1) {
  ByteStrides s(static_cast<size_t>(t.dim()));
  for (int64_t d = 0; d < t.dim(); ++d) s[d] = d == zero ? 0 : t.stride(d) * t.element_size();
  return s;
}

inline char* bytes_of(const Tensor& t) { return static_cast<char*>(t.data_ptr()); }

// t on `device`: the dispatcher lets a 0-dim CPU tensor join CUDA inputs (as
// PyTorch does for Python numbers); a kernel that reads it through a pointer
// copies it over first.
inline Tensor on_device(const Tensor& t, Device device) {
  if (!t.defined() || t.device() == device) return t;
  Tensor moved = empty(t.sizes(), TensorOptions(t.dtype()).device(device));
  copy_into(moved, t);
  return moved;
}

// The index i into a dim of `size`: negatives count from the end when `wrap`.
// Out of range: reported (the host raises IndexError at its next synchronization,
// with the index as given) and -1 returned, for the caller to skip the element.
__device__ inline int64_t checked_index(int64_t i, int64_t size, bool wrap,
                                        const DeviceErrorReporter& err) {
  const int64_t given = i;
  if (wrap && i < 0) i += size;
  if (i < 0 || i >= size) {
    err.report(DeviceErrorKind::IndexOutOfRange, given, size);
    return -1;
  }
  return i;
}

// ---- atomics --------------------------------------------------------------------------
// *p = convert<T>(op(opmath(*p), v)) as one atomic update, with the CPU kernel's
// arithmetic (one rounding per update). Elements of 1 and 2 bytes are updated by a
// compare-and-swap of the aligned 32-bit word that holds them: the caching
// allocator hands out blocks of multiples of 512 bytes at 512-byte alignment, so
// that word never leaves the tensor's block. Elements of 4 and 8 bytes swap
// themselves. The order of the updates to one element is unspecified, so float
// sums vary in their last bits between runs (as PyTorch's CUDA scatter_add_,
// index_add_ and index_put_(accumulate=True) do).
template <typename T, typename Op>
__device__ inline void atomic_update(T* p, opmath_t<T> v, const Op& op) {
  if constexpr (sizeof(T) < 4) {
    const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
    unsigned int* word = reinterpret_cast<unsigned int*>(addr & ~uintptr_t(3));
    const unsigned int shift = static_cast<unsigned int>(addr & 3) * 8u;
    const unsigned int mask = sizeof(T) == 1 ? 0xffu : 0xffffu;
    unsigned int old = *word, assumed;
    do {
      assumed = old;
      T cur;
      const auto bits = static_cast<std::conditional_t<sizeof(T) == 1, uint8_t, uint16_t>>((assumed >> shift) & mask);
      memcpy(&cur, &bits, sizeof(T));
      const T next = convert<T>(op(static_cast<opmath_t<T>>(cur), v));
      std::conditional_t<sizeof(T) == 1, uint8_t, uint16_t> nb;
      memcpy(&nb, &next, sizeof(T));
      const unsigned int updated = (assumed & ~(mask << shift)) | (static_cast<unsigned int>(nb) << shift);
      old = atomicCAS(word, assumed, updated);
    } while (old != assumed);
  } else {
    using W = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
    W* word = reinterpret_cast<W*>(p);
    W old = *word, assumed;
    do {
      assumed = old;
      T cur;
      memcpy(&cur, &assumed, sizeof(T));
      const T next = convert<T>(op(static_cast<opmath_t<T>>(cur), v));
      W nb;
      memcpy(&nb, &next, sizeof(T));
      old = atomicCAS(word, assumed, nb);
    } while (old != assumed);
  }
}

struct AddOp {
  template <typename A>
  __device__ A operator()(A a, A b) const { return wrap_add(a, b); }
};
struct MulOp {
  template <typename A>
  __device__ A operator()(A a, A b) const { return wrap_mul(a, b); }
};

// *p += v atomically: the hardware's atomicAdd where it computes what the CPU does
// (float, double, 32- and 64-bit integers: two's complement wraps alike), else
// atomic_update. Nondeterministic order for floats (see above).
template <typename T>
__device__ inline void atomic_add(T* p, opmath_t<T> v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    atomicAdd(p, v);
  } else if constexpr (std::is_same_v<T, int32_t>) {
    atomicAdd(reinterpret_cast<int*>(p), static_cast<int>(v));
  } else if constexpr (std::is_same_v<T, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else {
    atomic_update(p, v, AddOp{});
  }
}

}  // namespace ember::cuda

namespace ember::cuda {

// Scratch memory for a CUB call on like's device (from the caching allocator; a
// tensor freed after the queued call is reused only by work queued after it).
inline Tensor scratch(const Tensor& like, size_t bytes) {
  return empty(IntList{static_cast<int64_t>(bytes > 0 ? bytes : 1)},
               TensorOptions(kUInt8).device(like.device()));
}

}  // namespace ember::cuda
