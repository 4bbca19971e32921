// exp(float) that the compiler vectorizes inside `#pragma omp simd` loops.
// glibc's expf has no vector form without -ffast-math, so a softmax row would
// run one scalar call per element; this is the Cephes expf (Cody-Waite range
// reduction + degree-5 polynomial), accurate to about 1.5 ulp.
//
// No branches: the input is clamped to [-104, 89], where 2^n built in two
// halves underflows to 0 (exp(-104) < the smallest denormal) and overflows to
// +inf exactly where expf does; NaN flows through the arithmetic. The clamp is
// a bitwise blend, because with a `? :` select GCC propagates the clamped
// constant into a separate branch (jump threading) and the loop no longer
// vectorizes; the quiet comparisons (__builtin_isless) cannot trap, so they
// stay branch-free under the default -ftrapping-math.
#pragma once
#include <cstdint>
#include <cstring>

namespace ember::cpu {

// x clamped to [lo, hi]; NaN passes through.
inline float clamp_bits(float x, float lo, float hi) {
  uint32_t xb, lb, hb;
  std::memcpy(&xb, &x, 4);
  std::memcpy(&lb, &lo, 4);
  std::memcpy(&hb, &hi, 4);
  uint32_t below = 0u - static_cast<uint32_t>(__builtin_isless(x, lo));
  uint32_t above = 0u - static_cast<uint32_t>(__builtin_isgreater(x, hi));
  xb = (xb & ~(below | above)) | (lb & below) | (hb & above);
  float r;
  std::memcpy(&r, &xb, 4);
  return r;
}

inline float fast_exp(float x) {
  float xc = clamp_bits(x, -104.0f, 89.0f);
  // n = round(x / ln 2) (adding and removing 1.5 * 2^23 rounds without a
  // floor instruction, which SSE2 lacks); r = x - n ln 2 in two exact pieces.
  constexpr float kRound = 12582912.0f;
  float n = (xc * 1.44269504088896341f + kRound) - kRound;
  float r = xc - n * 0.693359375f + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  int32_t ni = static_cast<int32_t>(n);
  int32_t h = ni >> 1;
  int32_t b1 = (h + 127) << 23, b2 = (ni - h + 127) << 23;
  float s1, s2;
  std::memcpy(&s1, &b1, sizeof s1);
  std::memcpy(&s2, &b2, sizeof s2);
  return p * s1 * s2;
}

}  // namespace ember::cpu
