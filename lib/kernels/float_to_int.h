// Float -> integer conversion with one defined result for every value, shared by
// the CPU copy kernel (lib/cpu/copy.cpp) and the CUDA convert kernel
// (lib/cuda/convert_kernel.cu) so that both devices give the same bits.
//
// Why: a plain static_cast is undefined behaviour in C++ for NaN, +-inf and values
// whose truncation does not fit the target, and the hardware disagrees there: x86's
// cvttss2si returns the "integer indefinite" value (INT_MIN) while CUDA's cvt.rzi
// saturates (+inf -> INT64_MAX) and gives 0 for NaN.
//
// The rule is PyTorch's CPU results on x86-64 (measured with torch 2.x for every
// float dtype -> every integer dtype, contiguous and strided):
//   int64:        trunc(v) if it fits in int64, else INT64_MIN (NaN and +-inf included)
//   int32:        trunc(v) if it fits in int32, else INT32_MIN
//   int16, int8:  the int32 result, wrapped to its low 16 / 8 bits (300.7 -> int8 44;
//                 3e9 -> INT32_MIN -> 0)
//   uint8:        the int64 result, wrapped to its low 8 bits (-1.5 -> 255;
//                 float64 2^31 + 5 -> 5)
// float16 and bfloat16 convert through float32 (exactly). bool is not an integer
// here: it stays v != 0, so NaN -> true (element_types.h's convert).
#pragma once
#include <cstdint>
#include <type_traits>

#include "kernels/element_types.h"

namespace ember {

namespace float_to_int_detail {

// trunc(v) where it fits in I (a signed integer), else I's minimum, without ever
// converting a value that does not fit: the conversion is of a value in range
// (0 in place of the others) and a select picks the result, which the CPU loops
// vectorize (compare, convert, blend). v >= -2^(bits-1) rather than
// trunc(v) >= -2^(bits-1): the values between -2^(bits-1) - 1 and -2^(bits-1)
// truncate to the minimum, which is also what the fallback gives.
template <typename I, typename F>
EMBER_HOST_DEVICE inline I truncate_or_min(F v) {
  static_assert(std::is_signed_v<I> && std::is_floating_point_v<F>);
  constexpr F kLimit = static_cast<F>(uint64_t(1) << (8 * sizeof(I) - 1));  // exact in float and double
  constexpr I kMin = static_cast<I>(-kLimit);                                // -2^(bits-1) fits
  const bool fits = v >= -kLimit && v < kLimit;  // false for NaN
  const I truncated = static_cast<I>(fits ? v : F(0));
  return fits ? truncated : kMin;
}

}  // namespace float_to_int_detail

// v (float or double) converted to the integer type I by the rule above.
template <typename I, typename F>
EMBER_HOST_DEVICE inline I float_to_int(F v) {
  using float_to_int_detail::truncate_or_min;
  static_assert(std::is_integral_v<I> && !std::is_same_v<I, bool> && std::is_floating_point_v<F>);
  if constexpr (std::is_same_v<I, int64_t>) {
    return truncate_or_min<int64_t>(v);
  } else if constexpr (std::is_same_v<I, uint8_t>) {
    // Through int64; from a float32 the int32 path gives the same low byte (a float32
    // of magnitude >= 2^31 is a multiple of 256, and both minimums end in a zero
    // byte) and vectorizes where float -> int64 does not.
    if constexpr (sizeof(F) == 4) return static_cast<uint8_t>(truncate_or_min<int32_t>(v));
    else return static_cast<uint8_t>(truncate_or_min<int64_t>(v));
  } else {
    static_assert(std::is_signed_v<I> && sizeof(I) <= 4, "float_to_int: uint8, int8, int16, int32, int64");
    return static_cast<I>(truncate_or_min<int32_t>(v));  // C++20: the narrowing wraps
  }
}

// What a cast of tensors does to one element: convert (element_types.h), with a
// float -> integer conversion (float16 and bfloat16 through float) by float_to_int.
template <typename To, typename From>
EMBER_HOST_DEVICE inline To cast_element(From v) {
  if constexpr (is_float_v<From> && std::is_integral_v<To> && !std::is_same_v<To, bool>)
    return float_to_int<To>(static_cast<opmath_t<From>>(v));
  else
    return convert<To>(v);
}

}  // namespace ember
