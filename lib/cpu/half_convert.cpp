#include "cpu/half_convert.h"

#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define EMBER_HAVE_X86 1
#endif

namespace ember::cpu {

#ifdef EMBER_HAVE_X86
bool has_f16c() {
  // F16C read from cpuid: clang (the fuzz build) has no __builtin_cpu_supports("f16c").
  static const bool yes = [] {
    unsigned a, b, c, d;
    return __builtin_cpu_supports("avx") && __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
  }();
  return yes;
}

namespace {
bool has_avx512f() {
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
}
// AVX512-BF16 (cpuid leaf 7, subleaf 1, eax bit 5), read directly: not every compiler's
// __builtin_cpu_supports knows the name.
bool has_avx512_bf16() {
  static const bool yes = [] {
    unsigned a, b, c, d;
    return has_avx512f() && __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & (1u << 5));
  }();
  return yes;
}
bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

// Compiled for AVX+F16C only; called only after has_f16c() said the CPU has them.
__attribute__((target("avx,f16c"))) int64_t float_to_half_f16c(Half* dst, const float* src, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
  return i;
}
__attribute__((target("avx,f16c"))) int64_t half_to_float_f16c(float* dst, const Half* src, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  return i;
}

// bfloat16: the scalar rule of BFloat16::from_float on 16 / 8 lanes. A NaN (magnitude
// above inf's bits) becomes its top half with the quiet bit set; everything else is
// rounded to nearest-even by adding 0x7fff plus the lowest kept bit, then truncated.
__attribute__((target("avx512f"))) int64_t float_to_bf16_avx512(BFloat16* dst, const float* src, int64_t n) {
  const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff), inf = _mm512_set1_epi32(0x7f800000);
  const __m512i bias = _mm512_set1_epi32(0x7fff), one = _mm512_set1_epi32(1), quiet = _mm512_set1_epi32(0x40);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512i x = _mm512_loadu_si512(src + i);
    __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(x, 16), one);
    __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(x, _mm512_add_epi32(bias, lsb)), 16);
    __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(x, abs_mask), inf);
    __m512i r = _mm512_mask_or_epi32(rounded, nan, _mm512_srli_epi32(x, 16), quiet);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm512_cvtepi32_epi16(r));
  }
  return i;
}
// With AVX512-BF16: vcvtneps2bf16 rounds to nearest-even and quiets a NaN exactly as
// the rule above, but flushes float32 subnormals to zero; a vector holding one (rare)
// takes the integer rounding instead.
__attribute__((target("avx512f,avx512bf16"))) int64_t float_to_bf16_avx512bf16(BFloat16* dst, const float* src,
                                                                              int64_t n) {
  const __m512i exp_bits = _mm512_set1_epi32(0x7f800000), mant_bits = _mm512_set1_epi32(0x007fffff);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512i x = _mm512_loadu_si512(src + i);
    __mmask16 subnormal = _mm512_testn_epi32_mask(x, exp_bits) & _mm512_test_epi32_mask(x, mant_bits);
    if (subnormal) {
      float_to_bf16_avx512(dst + i, src + i, 16);
      continue;
    }
    __m256bh r = _mm512_cvtneps_pbh(_mm512_castsi512_ps(x));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), (__m256i)r);
  }
  return i;
}
__attribute__((target("avx512f"))) int64_t bf16_to_float_avx512(float* dst, const BFloat16* src, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    _mm512_storeu_si512(dst + i, _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
  return i;
}
__attribute__((target("avx2"))) int64_t float_to_bf16_avx2(BFloat16* dst, const float* src, int64_t n) {
  const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
  const __m256i bias = _mm256_set1_epi32(0x7fff), one = _mm256_set1_epi32(1), quiet = _mm256_set1_epi32(0x40);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(x, 16), one);
    __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(x, _mm256_add_epi32(bias, lsb)), 16);
    __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, abs_mask), inf);
    __m256i r = _mm256_blendv_epi8(rounded, _mm256_or_si256(_mm256_srli_epi32(x, 16), quiet), nan);
    // Every lane is below 2^16, so the unsigned pack keeps it; the pack works per
    // 128-bit half, hence the two halves packed together.
    __m128i packed = _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), packed);
  }
  return i;
}
__attribute__((target("avx2"))) int64_t bf16_to_float_avx2(float* dst, const BFloat16* src, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
  return i;
}
}  // namespace
#else
bool has_f16c() { return false; }
#endif

void float_to_half(Half* dst, const float* src, int64_t n) {
  int64_t i = 0;
#ifdef EMBER_HAVE_X86
  if (has_f16c()) i = float_to_half_f16c(dst, src, n);
#endif
  for (; i < n; ++i) dst[i] = Half(src[i]);  // the tail, or every value without F16C
}

void half_to_float(float* dst, const Half* src, int64_t n) {
  int64_t i = 0;
#ifdef EMBER_HAVE_X86
  if (has_f16c()) i = half_to_float_f16c(dst, src, n);
#endif
  for (; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

void float_to_bfloat16(BFloat16* dst, const float* src, int64_t n) {
  int64_t i = 0;
#ifdef EMBER_HAVE_X86
  if (has_avx512_bf16()) i = float_to_bf16_avx512bf16(dst, src, n);
  else if (has_avx512f()) i = float_to_bf16_avx512(dst, src, n);
  else if (has_avx2()) i = float_to_bf16_avx2(dst, src, n);
#endif
  for (; i < n; ++i) dst[i] = BFloat16(src[i]);
}

void bfloat16_to_float(float* dst, const BFloat16* src, int64_t n) {
  int64_t i = 0;
#ifdef EMBER_HAVE_X86
  if (has_avx512f()) i = bf16_to_float_avx512(dst, src, n);
  else if (has_avx2()) i = bf16_to_float_avx2(dst, src, n);
#endif
  for (; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

}  // namespace ember::cpu
