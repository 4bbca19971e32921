// Vectorizable float32 math: exp, log, sin, cos, tanh, sigmoid, erf and the
// activations built from them.
//
// Why: GCC never vectorizes a loop that calls std::exp, std::tanh, ... so a
// dense float32 kernel calling them runs one element at a time. These
// versions are plain branch-free arithmetic (a select instead of a branch,
// bit casts instead of frexp/ldexp), so a loop calling them vectorizes for
// whatever ISA the loop is compiled for (see EMBER_TARGET_CLONES).
//
// Method: the classic range reduction + polynomial (Cephes-style minimax
// coefficients; erf's and gelu's erfc fitted here). Accuracy on float32: within 2-3 ulp of the
// correctly rounded result (test/python/test_unary.py checks against float64);
// IEEE special values (nan, +-inf, signed zero) come out as std:: gives them.
#pragma once
#include <bit>
#include <cstdint>

// Always inlined: a call left in a loop (GCC's inliner gives up in large kernels, e.g.
// one calling tanh and sigmoid five times) stops the loop from vectorizing.
#define EMBER_VEC_INLINE [[gnu::always_inline]] inline

namespace ember::cpu::vec {

EMBER_VEC_INLINE float as_float(uint32_t i) { return std::bit_cast<float>(i); }
EMBER_VEC_INLINE uint32_t as_bits(float f) { return std::bit_cast<uint32_t>(f); }
EMBER_VEC_INLINE float abs(float x) { return as_float(as_bits(x) & 0x7fffffffu); }
// |magnitude| with the sign of sign_of.
EMBER_VEC_INLINE float copysign(float magnitude, float sign_of) {
  return as_float((as_bits(magnitude) & 0x7fffffffu) | (as_bits(sign_of) & 0x80000000u));
}
// 2^n for an integer n in [-126, 127].
EMBER_VEC_INLINE float pow2i(int32_t n) { return as_float(static_cast<uint32_t>(n + 127) << 23); }

// Adding then subtracting 1.5 * 2^23 rounds a float (|x| < 2^22) to the
// nearest integer; the integer is also in the low bits of the sum.
constexpr float kRoundMagic = 12582912.0f;

EMBER_VEC_INLINE float exp(float x) {
  // exp(x) = 2^n * exp(r), n = round(x / ln2), |r| <= ln2 / 2. The clamp keeps n in a
  // range where 2^n splits into two normal factors; nan passes through the compares.
  x = x < -104.0f ? -104.0f : x;
  x = x > 89.0f ? 89.0f : x;
  float t = x * 1.44269504088896341f + kRoundMagic;
  int32_t n = static_cast<int32_t>(as_bits(t) - as_bits(kRoundMagic));
  float nf = t - kRoundMagic;
  // ln2 split in two so that nf * hi is exact.
  float r = x - nf * 0.693359375f;
  r = r + nf * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  int32_t n1 = n >> 1;
  return p * pow2i(n1) * pow2i(n - n1);
}

EMBER_VEC_INLINE float log(float x) {
  // x = m * 2^e with m in [sqrt(1/2), sqrt(2)); log(x) = e ln2 + log(m). The selects
  // choose between constants only: GCC (with trapping math) does not if-convert a
  // select of two computed floats, and a branch would stop vectorization.
  bool tiny = x < 1.17549435e-38f;  // subnormal (or <= 0: fixed up below)
  float xs = x * (tiny ? 8388608.0f : 1.0f);
  uint32_t bits = as_bits(xs);
  float e = static_cast<float>(static_cast<int32_t>((bits >> 23) & 0xffu) - 126) - (tiny ? 23.0f : 0.0f);
  float m = as_float((bits & 0x007fffffu) | 0x3f000000u);  // in [0.5, 1)
  bool low = m < 0.707106781186547524f;
  e = e - (low ? 1.0f : 0.0f);
  m = m * (low ? 2.0f : 1.0f) - 1.0f;
  float z = m * m;
  float p = 7.0376836292e-2f;
  p = p * m - 1.1514610310e-1f;
  p = p * m + 1.1676998740e-1f;
  p = p * m - 1.2420140846e-1f;
  p = p * m + 1.4249322787e-1f;
  p = p * m - 1.6668057665e-1f;
  p = p * m + 2.0000714765e-1f;
  p = p * m - 2.4999993993e-1f;
  p = p * m + 3.3333331174e-1f;
  float y = p * m * z - e * 2.12194440e-4f - 0.5f * z;
  float r = m + y + e * 0.693359375f;
  r = x == 0.0f ? -__builtin_inff() : r;
  r = x == __builtin_inff() ? x : r;
  return x >= 0.0f ? r : __builtin_nanf("");  // negative or nan
}

// log(1 + y), accurate for tiny y too: log(u) * y / (u - 1) with u = 1 + y rounded,
// which cancels the rounding of u (Goldberg's trick); y itself where u rounds to 1.
EMBER_VEC_INLINE float log1p(float y) {
  float u = 1.0f + y, d = u - 1.0f;
  bool exact = d == 0.0f;
  float r = log(u) * (y / (exact ? 1.0f : d));
  r = exact ? y : r;
  return u == __builtin_inff() ? u : r;  // inf / inf would be nan
}

// Beyond this |x| the reduction below loses accuracy; kernels call std::sin/cos there.
constexpr float kSinCosMaxArg = 256.0f;

namespace detail {
// Reduces |x| by multiples of pi/4: returns r in [-pi/4, pi/4] and the even octant j,
// the even integer nearest |x| 4/pi. Its half is rounded with the magic-number trick,
// which needs no float -> int conversion, so nan and huge |x| (where callers use std::)
// stay defined, and no select that could keep the loop from vectorizing.
EMBER_VEC_INLINE float reduce_pi4(float ax, int32_t& j) {
  float t = ax * 0.636619772367581343f + kRoundMagic;  // 2/pi
  j = static_cast<int32_t>((as_bits(t) - as_bits(kRoundMagic)) << 1);
  float y = (t - kRoundMagic) * 2.0f;
  // pi/4 in three parts so that the products are (nearly) exact.
  return ((ax - y * 0.78515625f) - y * 2.4187564849853515625e-4f) - y * 3.77489497744594108e-8f;
}
EMBER_VEC_INLINE float sin_poly(float r, float z) {
  float p = -1.9515295891e-4f;
  p = p * z + 8.3321608736e-3f;
  p = p * z - 1.6666654611e-1f;
  return p * z * r + r;
}
EMBER_VEC_INLINE float cos_poly(float z) {
  float p = 2.443315711809948e-5f;
  p = p * z - 1.388731625493765e-3f;
  p = p * z + 4.166664568298827e-2f;
  return p * z * z - 0.5f * z + 1.0f;
}
}  // namespace detail

// Valid for |x| <= kSinCosMaxArg (and nan).
EMBER_VEC_INLINE float sin(float x) {
  int32_t j;
  float r = detail::reduce_pi4(abs(x), j);
  float z = r * r;
  float v = (j & 2) ? detail::cos_poly(z) : detail::sin_poly(r, z);
  bool negate = ((j & 4) != 0) != (as_bits(x) >> 31 != 0);
  return negate ? -v : v;
}

EMBER_VEC_INLINE float cos(float x) {
  int32_t j;
  float r = detail::reduce_pi4(abs(x), j);
  float z = r * r;
  float v = (j & 2) ? detail::sin_poly(r, z) : detail::cos_poly(z);
  return ((j + 2) & 4) ? -v : v;
}

EMBER_VEC_INLINE float tanh(float x) {
  // Small |x|: odd polynomial; else 1 - 2 / (exp(2|x|) + 1), which is 1 once exp overflows.
  float ax = abs(x);
  float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  float small = p * z * x + x;
  float large = copysign(1.0f - 2.0f / (exp(ax + ax) + 1.0f), x);
  return ax < 0.625f ? small : large;
}

// From e = exp(-|x|), which cannot overflow: 1 / (1 + e) for x >= 0, e / (1 + e) below
// (so that tiny results keep their precision instead of flushing 1 / inf to 0).
EMBER_VEC_INLINE float sigmoid(float x) {
  float e = exp(-abs(x));
  return (x >= 0.0f ? 1.0f : e) / (1.0f + e);
}
EMBER_VEC_INLINE float silu(float x) { return x * sigmoid(x); }

namespace detail {
// erf(x) = x P(x^2) for |x| <= 1 (P fitted to erf(x)/x on [0, 1]).
EMBER_VEC_INLINE float erf_small(float x) {
  float z = x * x;
  float p = 7.8538576946e-05f;
  p = p * z - 8.0101925174e-04f;
  p = p * z + 5.1883275597e-03f;
  p = p * z - 2.6853811869e-02f;
  p = p * z + 1.1283585147e-01f;
  p = p * z - 3.7612625824e-01f;
  p = p * z + 1.1283791657e+00f;
  return x * p;
}
// erfc(a) for a >= 1 (about 0.95 to 10, and 0 beyond): t exp(-a^2 + S(t)) with
// t = 1 / (1 + a / 2), S fitted to log(erfc(a) / t) + a^2. No cancellation, so the
// tiny values that gelu's negative tail needs keep their relative precision.
EMBER_VEC_INLINE float erfc_tail(float a) {
  float t = 1.0f / (1.0f + 0.5f * a);
  float s = -2.1648484175e-01f;
  s = s * t + 5.6527272710e-01f;
  s = s * t - 3.3857100616e-01f;
  s = s * t - 1.5328582089e-01f;
  s = s * t - 3.1326184902e-02f;
  s = s * t + 5.9424180013e-02f;
  s = s * t + 3.7999797103e-01f;
  s = s * t + 9.9947100194e-01f;
  s = s * t - 1.2654894124e+00f;
  return t * exp(s - a * a);
}
}  // namespace detail

EMBER_VEC_INLINE float erf(float x) {
  float a = abs(x);
  float small = detail::erf_small(x);
  float large = copysign(1.0f - detail::erfc_tail(a), x);
  return a < 1.0f ? small : large;
}

EMBER_VEC_INLINE float erfc(float x) {
  float a = abs(x);
  float small = 1.0f - detail::erf_small(x);
  float tail = detail::erfc_tail(a);
  return a < 1.0f ? small : x > 0.0f ? tail : 2.0f - tail;
}

namespace detail {
// gelu and its derivative need erfc(a), a = |x| / sqrt 2, with a small relative error
// everywhere (the negative tail is x times it). erf / erfc above evaluate a small-argument
// and a tail formula for every element and select one; here one formula covers a in
// [0, 10]: erfc(a) = t exp(S(u) - x^2 / 2) with t = 1 / (1 + 0.45 a) and u = 1 - t in
// [0, 0.82], where S(u) = u P(u) is fitted (minimax, |error| < 1.2e-8, which is erfc's
// relative error) to log(erfc(a) / t) + a^2. S(0) = 0 exactly, so small |x| lose nothing.
EMBER_VEC_INLINE float erfc_log_factor(float u) {
  float p = -1.8086374706e-01f;
  p = p * u + 5.9736901238e-01f;
  p = p * u - 6.1470894673e-01f;
  p = p * u + 1.3780824453e-01f;
  p = p * u - 9.8193487242e-02f;
  p = p * u + 2.2238606657e-01f;
  p = p * u + 2.8572394068e-01f;
  p = p * u - 2.1299206596e-01f;
  p = p * u - 1.5075095865e+00f;
  return p * u;
}
// 2^64 exp(s - x hx) for hx = x / 2 and s in about [-1.6, 0]. The reduction subtracts
// n ln2 from the exact product x hx (one FMA), not from a rounded x^2 / 2, whose rounding
// would cost up to 2^-24 x^2 / 2 of relative error (hundreds of ulp in gelu's tail). The
// 2^64 keeps results down to 2^-150 normal, so that the caller's last multiplication (by
// 2^-64) rounds a subnormal result once. e_approx gets s - x hx; below -110 (and for
// nan) the result is meaningless and the callers select their limit instead.
EMBER_VEC_INLINE float exp_gauss_scaled(float x, float hx, float s, float& e_approx) {
  e_approx = s - hx * x;
  const float t = e_approx * 1.44269504088896341f + kRoundMagic;
  const int32_t n = static_cast<int32_t>(as_bits(t) - as_bits(kRoundMagic));
  const float nf = t - kRoundMagic;
  // ln2 = 0.693359375 - 2.12194440e-4; nf * 0.693359375 is exact.
  float r = s - __builtin_fmaf(hx, x, nf * 0.693359375f);
  r = r + nf * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return p * as_float(static_cast<uint32_t>(n + 127 + 64) << 23);
}
constexpr float kTwoToMinus64 = 5.42101086242752217e-20f;
// 0.45 / sqrt 2: t = 1 / (1 + kGeluTailScale |x|).
constexpr float kGeluTailScale = 0.318198051533946386f;
}  // namespace detail

// x Phi(x) = x erfc(-x / sqrt 2) / 2, from v = x erfc(|x| / sqrt 2) / 2 (= x Phi(-|x|)):
// v itself for x <= 0 and x - v above, so the negative tail keeps its relative precision
// (no 1 + erf cancelling). Within 3 ulp for |x| < 1 and 4.1 ulp in the tail (down to
// subnormal results) against float64 (test/python/test_gelu_accuracy.py). The FMA in
// exp_gauss_scaled is a library call in the baseline (pre-AVX2) clone: there the loop
// runs element by element, about 2.5x slower than the old two-formula erfc.
EMBER_VEC_INLINE float gelu(float x) {
  const float hx = 0.5f * x;
  const float ka = detail::kGeluTailScale * abs(x);
  const float t = 1.0f / (1.0f + ka);
  const float s = detail::erfc_log_factor(ka * t);  // u = 1 - t without 1 - t's rounding
  float e_approx;
  const float g = detail::exp_gauss_scaled(x, hx, s, e_approx);
  float v = (hx * t) * g * detail::kTwoToMinus64;
  // Beyond the range (|x| > 14.9, also +-inf and nan, whose u is inf * 0): 0 with x's
  // sign, and nan at -inf, as the float64 form x erfc(-x / sqrt 2) / 2 gives them.
  v = e_approx >= -110.0f ? v : (hx < 0.0f ? hx : 0.0f) * 0.0f;
  return x <= 0.0f ? v : x - v;
}
// d/dx x Phi(x) = Phi(x) + x phi(x), phi(x) = exp(-x^2 / 2) / sqrt(2 pi), with Phi from
// the same erfc as gelu (one exp for erfc's, one for phi's).
EMBER_VEC_INLINE float gelu_grad(float x) {
  const float hx = 0.5f * x;
  const float ka = detail::kGeluTailScale * abs(x);
  const float t = 1.0f / (1.0f + ka);
  const float s = detail::erfc_log_factor(ka * t);
  float e_tail, e_pdf;
  const float g_tail = detail::exp_gauss_scaled(x, hx, s, e_tail);
  const float g_pdf = detail::exp_gauss_scaled(x, hx, 0.0f, e_pdf);
  float w = (0.5f * t) * g_tail * detail::kTwoToMinus64;  // Phi(-|x|)
  float pdf = 0.398942280401432678f * g_pdf * detail::kTwoToMinus64;
  w = e_tail >= -110.0f ? w : 0.0f;
  pdf = e_pdf >= -110.0f ? pdf : 0.0f;
  return (x <= 0.0f ? w : 1.0f - w) + x * pdf;
}
// x (1 + tanh(u)) / 2 = x sigmoid(2u): the same function without 1 + tanh cancelling.
EMBER_VEC_INLINE float gelu_tanh(float x) {
  float inner = 0.797884560802865356f * (x + 0.044715f * x * x * x);  // sqrt(2/pi)
  return x * sigmoid(inner + inner);
}

}  // namespace ember::cpu::vec

namespace ember::cpu {
// The names the nn kernels (loss_*.cpp) use.
EMBER_VEC_INLINE float fast_exp(float x) { return vec::exp(x); }
EMBER_VEC_INLINE float fast_log(float x) { return vec::log(x); }
EMBER_VEC_INLINE float fast_log1p(float y) { return vec::log1p(y); }
}  // namespace ember::cpu
