// Bulk float32 <-> float16 / bfloat16 conversion of contiguous buffers. The scalar
// conversions in ember/half.h round correctly but do not vectorize well (Half's
// branches handle subnormals, inf and nan one value at a time); these convert a
// vector at a time with the same results:
//  - float16: F16C's vcvtps2ph / vcvtph2ps (nearest-even, subnormals kept), where
//    the CPU has F16C. A NaN stays a quiet NaN (F16C keeps the top payload bits,
//    the scalar path drops them: NaN bit patterns with a payload may differ).
//  - bfloat16: AVX512-BF16's vcvtneps2bf16 where the CPU has it, else the scalar
//    path's integer rounding (x + 0x7fff + lsb, NaN quieted) on AVX-512F or AVX2
//    lanes, bit for bit the same. vcvtneps2bf16 flushes float32 subnormals to zero
//    (checked on Zen 4), which the scalar path and PyTorch do not: vectors holding
//    one take the integer rounding.
// Each picks its instruction set once, at run time (the build has no -march).
#pragma once
#include <cstdint>
#include <type_traits>

#include "ember/half.h"

namespace ember::cpu {

// Whether the float16 converters below use the hardware path on this CPU.
bool has_f16c();
void float_to_half(Half* dst, const float* src, int64_t n);
void half_to_float(float* dst, const Half* src, int64_t n);
void float_to_bfloat16(BFloat16* dst, const float* src, int64_t n);
void bfloat16_to_float(float* dst, const BFloat16* src, int64_t n);

// The same, chosen by type (T is Half or BFloat16), for templated loops.
template <typename T>
inline void to_float_bulk(float* dst, const T* src, int64_t n) {
  if constexpr (std::is_same_v<T, Half>) half_to_float(dst, src, n);
  else bfloat16_to_float(dst, src, n);
}
template <typename T>
inline void from_float_bulk(T* dst, const float* src, int64_t n) {
  if constexpr (std::is_same_v<T, Half>) float_to_half(dst, src, n);
  else float_to_bfloat16(dst, src, n);
}

}  // namespace ember::cpu
