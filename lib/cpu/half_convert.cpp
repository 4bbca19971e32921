#include "cpu/half_convert.h"

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

}  // namespace ember::cpu
