// exp, log and log1p of float that the compiler vectorizes inside loops.
// glibc's expf/logf have no vector form without -ffast-math, so a softmax
// row would run one scalar call per element. These are the Cephes
// algorithms (range reduction + polynomial), accurate to about 2 ulp, written
// without branches (blends of bit patterns) so that loops using them vectorize.
//
// fast_exp: no branches: the input is clamped to [-104, 89], where 2^n built in two
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

// a where mask is all ones, b where it is zero (mask: 0 or ~0u).
inline float blend_bits(uint32_t mask, float a, float b) {
  uint32_t ab, bb;
  std::memcpy(&ab, &a, 4);
  std::memcpy(&bb, &b, 4);
  const uint32_t r = (ab & mask) | (bb & ~mask);
  float f;
  std::memcpy(&f, &r, 4);
  return f;
}

// log(x) for positive normal x (Cephes logf: x = m 2^e with m in
// [sqrt(1/2), sqrt(2)), then a degree-8 polynomial in m - 1).
inline float fast_log(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  int32_t e = static_cast<int32_t>(b >> 23) - 126;  // x = m 2^e, m in [0.5, 1)
  const uint32_t mb = (b & 0x007fffffu) | 0x3f000000u;
  float m;
  std::memcpy(&m, &mb, 4);
  const uint32_t small = 0u - static_cast<uint32_t>(__builtin_isless(m, 0.707106781186547524f));
  e -= static_cast<int32_t>(small & 1u);
  m = m + blend_bits(small, m, 0.0f) - 1.0f;  // 2m - 1 or m - 1
  const float z = m * m;
  float y = 7.0376836292e-2f;
  y = y * m - 1.1514610310e-1f;
  y = y * m + 1.1676998740e-1f;
  y = y * m - 1.2420140846e-1f;
  y = y * m + 1.4249322787e-1f;
  y = y * m - 1.6668057665e-1f;
  y = y * m + 2.0000714765e-1f;
  y = y * m - 2.4999993993e-1f;
  y = y * m + 3.3333331174e-1f;
  y = y * m * z;
  const float fe = static_cast<float>(e);
  y += -2.12194440e-4f * fe;
  y += -0.5f * z;
  return m + y + 0.693359375f * fe;
}

// log(1 + y) for y >= 0 (finite), accurate also for tiny y: log(u) * y / (u - 1)
// with u = 1 + y rounded, which cancels the rounding of u (Goldberg's trick).
inline float fast_log1p(float y) {
  const float u = 1.0f + y, d = u - 1.0f;
  const uint32_t exact = 0u - static_cast<uint32_t>(d == 0.0f);
  const float safe_d = blend_bits(exact, 1.0f, d);
  return blend_bits(exact, y, fast_log(u) * (y / safe_d));
}

}  // namespace ember::cpu
