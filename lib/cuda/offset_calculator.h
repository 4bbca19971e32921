// Where the i-th element of each operand of an elementwise kernel lives.
//
// The host describes the operands (output first, then the inputs, broadcast to the
// output's shape) in as few dims as their strides allow: size-1 dims are dropped
// and a dim merges into the next inner one where every operand steps over the two
// as over one (the same coalescing as the CPU loops, cpu/loops.h). The device then
// turns a linear index into byte offsets with one division per dim, done by
// multiplication (IntDivider), as integer division is slow on a GPU.
//
// Indices are 32-bit: an operation over 2^31 elements or more is split on the host
// into launches that each fit (for_each_32bit_part).
//
// This header is plain C++ with EMBER_HOST_DEVICE members, so its logic is unit
// tested on the CPU (test/cpp/cuda/test_offset_calculator.cpp).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>

#include "ember/half.h"  // EMBER_HOST_DEVICE
#include "ember/small_vector.h"
#include "ember/tensor.h"

#if defined(__CUDACC__)
#define EMBER_UNROLL _Pragma("unroll")
#else
#define EMBER_UNROLL
#endif

namespace ember::cuda {

// Dims left after coalescing beyond this are not supported (a clear error).
constexpr int kMaxElementwiseDims = 12;
// The host-side geometry keeps up to kMaxElementwiseDims dims and kInlineOperands
// operands inline, so describing a launch costs no heap allocation (more operands, or
// more dims before coalescing, spill to the heap and still work).
constexpr size_t kInlineOperands = 4;
using GeometrySizes = SmallVector<int64_t, kMaxElementwiseDims>;
using ByteStrides = SmallVector<int64_t, kMaxElementwiseDims>;       // one operand's, per dim
using OperandStrides = SmallVector<ByteStrides, kInlineOperands>;     // [operand][dim]
using OperandBytes = SmallVector<char*, kInlineOperands>;             // per operand

// n / d and n % d for a fixed d by a multiply-high and a shift (Granlund and
// Montgomery). Valid for 0 <= n < 2^31 and 1 <= d < 2^31.
struct IntDivider {
  uint32_t divisor = 1;
  uint32_t magic = 0;
  uint32_t shift = 0;

  IntDivider() = default;
  explicit IntDivider(uint32_t d) : divisor(d) {
    shift = 0;
    while (shift < 32 && (uint64_t(1) << shift) < d) ++shift;
    uint64_t one = 1;
    magic = static_cast<uint32_t>(((one << 32) * ((one << shift) - d)) / d + 1);
  }
  EMBER_HOST_DEVICE uint32_t div(uint32_t n) const {
#if defined(__CUDA_ARCH__)
    uint32_t t = __umulhi(n, magic);
#else
    uint32_t t = static_cast<uint32_t>((uint64_t(n) * magic) >> 32);
#endif
    return (t + n) >> shift;
  }
};

// Byte offsets of every operand of the linear index (row-major over the sizes).
template <int NOps>
struct OffsetCalculator {
  int ndim = 0;
  IntDivider sizes[kMaxElementwiseDims];
  int64_t strides[kMaxElementwiseDims][NOps];  // bytes

  EMBER_HOST_DEVICE void offsets(uint32_t linear, int64_t (&out)[NOps]) const {
EMBER_UNROLL
    for (int k = 0; k < NOps; ++k) out[k] = 0;
EMBER_UNROLL
    for (int d = kMaxElementwiseDims - 1; d >= 0; --d) {
      if (d >= ndim) continue;  // dims are stored innermost last: d = ndim-1 is innermost
      uint32_t q = sizes[d].div(linear);
      uint32_t index = linear - q * sizes[d].divisor;
      linear = q;
EMBER_UNROLL
      for (int k = 0; k < NOps; ++k) out[k] += int64_t(index) * strides[d][k];
    }
  }
};

// The coalesced geometry of the operands, on the host: sizes outermost first and
// one byte stride per operand and dim, plus each operand's base pointer.
struct ElementwiseGeometry {
  GeometrySizes sizes;
  SmallVector<SmallVector<int64_t, kInlineOperands>, kMaxElementwiseDims> strides;  // [dim][operand], bytes
  OperandBytes base;                                                                 // per operand
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
  // One dim in which every operand is dense (stride = its element size) or a
  // broadcast scalar (stride 0): the vectorized kernel's case.
  bool is_one_run() const { return sizes.size() <= 1; }
};

// sizes: the output's shape. operand_strides[k]: operand k's strides in bytes,
// already broadcast to `sizes` (0 where it broadcasts). Drops size-1 dims and merges.
ElementwiseGeometry coalesce(const GeometrySizes& sizes, const OperandStrides& operand_strides,
                             const OperandBytes& base);

// t's strides in bytes, broadcast to `sizes` (0 where t broadcasts).
ByteStrides broadcast_byte_strides(const Tensor& t, const DimVector& sizes);

namespace offsets_detail {
constexpr int64_t kMax32 = (int64_t(1) << 31) - 1;
// g with dim 0 restricted to [begin, begin + count).
ElementwiseGeometry slice_outer(const ElementwiseGeometry& g, int64_t begin, int64_t count);
// g without dim 0, at index i of it.
ElementwiseGeometry drop_outer(const ElementwiseGeometry& g, int64_t i);
}  // namespace offsets_detail

// Calls part(g) for pieces of g that each have fewer than 2^31 elements, with base
// pointers moved to each piece; a g that fits is passed on whole. (A template, not a
// std::function, so that a launch allocates nothing.)
template <typename Part>
void for_each_32bit_part(const ElementwiseGeometry& g, const Part& part) {
  using namespace offsets_detail;
  if (g.numel() <= kMax32) return part(g);
  int64_t inner = 1;
  for (size_t d = 1; d < g.sizes.size(); ++d) inner *= g.sizes[d];
  if (inner > kMax32) {  // even one step of dim 0 is too big: recurse into each
    for (int64_t i = 0; i < g.sizes[0]; ++i) for_each_32bit_part(drop_outer(g, i), part);
    return;
  }
  const int64_t rows = kMax32 / inner;  // steps of dim 0 per part
  for (int64_t begin = 0; begin < g.sizes[0]; begin += rows)
    part(slice_outer(g, begin, std::min(rows, g.sizes[0] - begin)));
}

// The device-side description of a geometry that fits in 32-bit indices (a part
// from for_each_32bit_part) with NOps operands and at most kMaxElementwiseDims dims.
template <int NOps>
OffsetCalculator<NOps> make_offset_calculator(const ElementwiseGeometry& g) {
  OffsetCalculator<NOps> calc;
  calc.ndim = static_cast<int>(g.sizes.size());
  for (int d = 0; d < calc.ndim; ++d) {
    calc.sizes[d] = IntDivider(static_cast<uint32_t>(g.sizes[d]));
    for (int k = 0; k < NOps; ++k) calc.strides[d][k] = g.strides[d][k];
  }
  return calc;
}

}  // namespace ember::cuda
