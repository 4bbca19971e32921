// Per-element formulas of the special functions (digamma, polygamma, erfinv, i0,
// i1, sinc, logaddexp, xlogy, gcd, ...), shared by the CPU kernels
// (cpu/unary_special.cpp, cpu/binary_special.cpp) and the CUDA kernels
// (cuda/elementwise/special.cu) so both backends compute each element alike. They
// take opmath values (float for float16 and bfloat16). Where PyTorch's result at an
// edge is a convention (digamma(0) = -inf, sinc(0) = 1, xlogy(0, y) = 0), the
// formula follows it; the series are PyTorch's (Cephes) where the tests compare
// against PyTorch's values.
#pragma once
#include <cstdint>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/element_types.h"

namespace ember {

template <typename T>
EMBER_HOST_DEVICE inline T special_pi() { return T(3.14159265358979323846264338327950288); }

// ---- gamma family -----------------------------------------------------------------------

// digamma: reflection for x < 0, the recurrence up to x >= 10, then the asymptotic
// series (PyTorch's calc_digamma, written without recursion). digamma(+0) = -inf,
// digamma(-0) = +inf, negative integers give nan.
template <typename T>
EMBER_HOST_DEVICE inline T digamma_value(T x) {
  const T inf = std::numeric_limits<T>::infinity();
  if (x == T(0)) return std::copysign(inf, -x);
  T result = 0;
  if (x < T(0)) {
    if (x == std::trunc(x)) return std::numeric_limits<T>::quiet_NaN();
    T r = x - std::trunc(x);  // the fractional part, as modf
    result = -special_pi<T>() / std::tan(special_pi<T>() * r);
    x = T(1) - x;
  }
  while (x < T(10)) {
    result -= T(1) / x;
    x += T(1);
  }
  if (x == T(10)) return result + T(2.25175258906672110764);  // digamma(10)
  T y = 0;
  if (x < T(1.0e17)) {
    // Coefficients of the asymptotic series in 1/x^2 (Cephes psi).
    T z = T(1) / (x * x);
    T p = T(8.33333333333333333333E-2);
    p = p * z + T(-2.10927960927960927961E-2);
    p = p * z + T(7.57575757575757575758E-3);
    p = p * z + T(-4.16666666666666666667E-3);
    p = p * z + T(3.96825396825396825397E-3);
    p = p * z + T(-8.33333333333333333333E-3);
    p = p * z + T(8.33333333333333333333E-2);
    y = z * p;
  }
  return result + std::log(x) - (T(0.5) / x) - y;
}

// trigamma (polygamma(1, x)) as PyTorch computes it: reflection below 1/2, six
// steps of the recurrence, then the asymptotic series.
template <typename T>
EMBER_HOST_DEVICE inline T trigamma_value(T x) {
  T sign = 1, result = 0;
  if (x < T(0.5)) {
    sign = -1;
    T s = std::sin(special_pi<T>() * x);
    result -= (special_pi<T>() * special_pi<T>()) / (s * s);
    x = T(1) - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += T(1) / (x * x);
    x += T(1);
  }
  T ixx = T(1) / (x * x);
  result += (T(1) + T(1) / (T(2) * x) + ixx * (T(1) / T(6) - ixx * (T(1) / T(30) - ixx * (T(1) / T(42))))) / x;
  return sign * result;
}

// The Hurwitz zeta function zeta(s, q) = sum_k (k + q)^-s (Cephes zeta, as PyTorch):
// direct sum until q + k >= 9, then the Euler-Maclaurin tail.
template <typename T>
EMBER_HOST_DEVICE inline T hurwitz_zeta(T s, T q) {
  const T machep = std::is_same_v<T, double> ? T(1.11022302462515654042E-16) : T(5.9604644775390625E-8);
  // (2k)! / B_2k
  const T A[12] = {T(12.0), T(-720.0), T(30240.0), T(-1209600.0), T(47900160.0),
                   T(-1.8924375803183791606e9), T(7.47242496e10), T(-2.950130727918164224e12),
                   T(1.1646782814350067249e14), T(-4.5979787224074726105e15),
                   T(1.8152105401943546773e17), T(-7.1661652561756670113e18)};
  if (s == T(1)) return std::numeric_limits<T>::infinity();
  if (s < T(1)) return std::numeric_limits<T>::quiet_NaN();
  if (q <= T(0)) {
    if (q == std::floor(q)) return std::numeric_limits<T>::infinity();
    if (s != std::floor(s)) return std::numeric_limits<T>::quiet_NaN();
  }
  T sum = std::pow(q, -s);
  T a = q, b = 0;
  int i = 0;
  while (i < 9 || a <= T(9)) {
    i += 1;
    a += T(1);
    b = std::pow(a, -s);
    sum += b;
    if (std::abs(b / sum) < machep) return sum;
  }
  T w = a;
  sum += b * w / (s - T(1));
  sum -= T(0.5) * b;
  T fac = 1, k = 0;
  for (int j = 0; j < 12; ++j) {
    fac *= s + k;
    b /= w;
    T t = fac * b / A[j];
    sum += t;
    if (std::abs(t / sum) < machep) return sum;
    k += T(1);
    fac *= s + k;
    b /= w;
    k += T(1);
  }
  return sum;
}

// polygamma(n, x): digamma for n = 0, trigamma for n = 1, else
// (-1)^(n+1) n! zeta(n + 1, x) (PyTorch's formulas).
template <typename T>
EMBER_HOST_DEVICE inline T polygamma_value(int64_t n, T x) {
  if (n == 0) return digamma_value(x);
  if (n == 1) return trigamma_value(x);
  T factorial = std::exp(std::lgamma(T(n) + T(1)));
  return ((n % 2) ? T(1) : T(-1)) * factorial * hurwitz_zeta(T(n + 1), x);
}

// ---- error function ---------------------------------------------------------------------

// erfinv: Giles' single-precision approximation ("Approximating the erfinv
// function", GPU Computing Gems), then Newton steps on erf (|y| <= 1/2) or on log erfc
// (|y| > 1/2, where 1 - |y| is exact and erfc keeps its relative accuracy): for
// double until converged (quadratic), one for float.
template <typename T>
EMBER_HOST_DEVICE inline T erfinv_value(T y) {
  const T inf = std::numeric_limits<T>::infinity();
  if (!(std::abs(y) <= T(1))) return std::numeric_limits<T>::quiet_NaN();
  if (y == T(1)) return inf;
  if (y == T(-1)) return -inf;
  if (y == T(0)) return y;
  // w in T: float's (1 - y)(1 + y) would round to 0 for double y near +-1.
  float w = static_cast<float>(-std::log((T(1) - y) * (T(1) + y)));
  float p;
  if (w < 5.0f) {
    w -= 2.5f;
    p = 2.81022636e-08f;
    p = 3.43273939e-07f + p * w;
    p = -3.5233877e-06f + p * w;
    p = -4.39150654e-06f + p * w;
    p = 0.00021858087f + p * w;
    p = -0.00125372503f + p * w;
    p = -0.00417768164f + p * w;
    p = 0.246640727f + p * w;
    p = 1.50140941f + p * w;
  } else {
    w = std::sqrt(w) - 3.0f;
    p = -0.000200214257f;
    p = 0.000100950558f + p * w;
    p = 0.00134934322f + p * w;
    p = -0.00367342844f + p * w;
    p = 0.00573950773f + p * w;
    p = -0.0076224613f + p * w;
    p = 0.00943887047f + p * w;
    p = 1.00167406f + p * w;
    p = 2.83297682f + p * w;
  }
  T a = std::abs(y);
  T x = std::abs(static_cast<T>(p) * y);
  const T two_over_sqrt_pi = T(1.12837916709551257390);
  // Double: up to six steps (the far tail starts further off), stopping once converged.
  int steps = std::is_same_v<T, double> ? 6 : 1;
  for (int i = 0; i < steps; ++i) {
    T step;
    if (a > T(0.5)) {
      // On log erfc(x) = log(1 - a): close to linear in the tail, so Newton converges
      // from a rough start too. d/dx log erfc(x) = -2/sqrt(pi) e^(-x^2) / erfc(x).
      T e = std::erfc(x);
      T slope = -two_over_sqrt_pi * std::exp(-x * x) / e;
      step = (std::log(e) - std::log(T(1) - a)) / slope;
    } else {
      step = (std::erf(x) - a) / (two_over_sqrt_pi * std::exp(-x * x));
    }
    x -= step;
    if (std::abs(step) <= T(1e-17) * x) break;
  }
  return std::copysign(x, y);
}

// ---- Bessel functions of the first kind, orders 0 and 1 ------------------------------------

// I_nu(x) for nu = 0 or 1 and x >= 0: the power series (positive terms, no
// cancellation) up to 30, the asymptotic series above (its terms fall below the
// precision before they start to grow for x > 30).
template <int kNu, typename T>
EMBER_HOST_DEVICE inline T bessel_i_positive(T x) {
  const T eps = std::is_same_v<T, double> ? T(1e-17) : T(3e-8);
  if (x <= T(30)) {
    T q = x * x / T(4);
    T term = kNu == 0 ? T(1) : x / T(2);
    T sum = term;
    for (int k = 1; k < 500; ++k) {
      term *= q / (T(k) * T(k + kNu));
      sum += term;
      if (term < eps * sum) break;
    }
    return sum;
  }
  // e^x / sqrt(2 pi x) * sum_k (-1)^k prod_{j<=k} (4 nu^2 - (2j - 1)^2) / (k! (8x)^k)
  const T mu = T(4 * kNu * kNu);
  T term = 1, sum = 1;
  for (int k = 1; k < 60; ++k) {
    T odd = T(2 * k - 1);
    term *= -(mu - odd * odd) / (T(k) * T(8) * x);
    sum += term;
    if (std::abs(term) < eps * std::abs(sum)) break;
  }
  // e^x taken whole: it overflows from 709.78 (float: 88.7) as PyTorch's does.
  return std::exp(x) / std::sqrt(T(2) * special_pi<T>() * x) * sum;
}

template <typename T>
EMBER_HOST_DEVICE inline T i0_value(T x) {
  if (x != x) return x;
  return bessel_i_positive<0>(std::abs(x));
}

template <typename T>
EMBER_HOST_DEVICE inline T i1_value(T x) {
  if (x != x) return x;
  T r = bessel_i_positive<1>(std::abs(x));
  return x < T(0) ? -r : r;
}

// ---- others ---------------------------------------------------------------------------

// sin(pi x) / (pi x), 1 at 0 (PyTorch's: the product is rounded to T first).
template <typename T>
EMBER_HOST_DEVICE inline T sinc_value(T x) {
  if (x == T(0)) return T(1);
  T product = special_pi<T>() * x;
  return std::sin(product) / product;
}

// The sign bit: true for -0.0 and negative nan too; integers: x < 0.
template <typename T>
EMBER_HOST_DEVICE inline bool signbit_value(T x) {
  // copysign rather than std::signbit: GCC 12 fails on the vectorized signbit (an ICE).
  if constexpr (std::is_floating_point_v<T>) return std::copysign(T(1), x) < T(0);
  else if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>) return false;
  else return x < T(0);
}

// log(e^a + e^b) without overflow; two equal infinities give themselves.
template <typename T>
EMBER_HOST_DEVICE inline T logaddexp_value(T a, T b) {
  if (std::isinf(a) && a == b) return a;
  T m = a > b ? a : b;
  if (m != m) return a + b;  // a nan
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

template <typename T>
EMBER_HOST_DEVICE inline T logaddexp2_value(T a, T b) {
  if (std::isinf(a) && a == b) return a;
  T m = a > b ? a : b;
  if (m != m) return a + b;
  return m + std::log1p(std::exp2(-std::abs(a - b))) * T(1.44269504088896340736);  // 1 / ln 2
}

// x log y, 0 where x == 0 unless y is nan.
template <typename T>
EMBER_HOST_DEVICE inline T xlogy_value(T x, T y) {
  if (y != y) return y;
  if (x == T(0)) return T(0);
  return x * std::log(y);
}

// fmax / fmin: a nan loses to a number (integers: max / min).
template <bool kMax, typename T>
EMBER_HOST_DEVICE inline T fextremum_value(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    if (x != x) return y;
    if (y != y) return x;
  }
  return (kMax ? x < y : y < x) ? y : x;
}

// x == 0 ? values : (x > 0), as PyTorch (nan gives 0).
template <typename T>
EMBER_HOST_DEVICE inline T heaviside_value(T x, T values) {
  return x == T(0) ? values : static_cast<T>(x > T(0));
}

// nextafter in the storage type S, on opmath values x and y (which hold S values):
// float16 and bfloat16 step their own 16-bit representation, not float's.
template <typename S, typename O>
EMBER_HOST_DEVICE inline O nextafter_value(O x, O y) {
  if constexpr (std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>) {
    if (x != x || y != y) return x + y;
    if (x == y) return y;
    uint16_t bits = S(x).bits;  // exact: x is an S value
    if (x == O(0)) bits = static_cast<uint16_t>((y < O(0) ? 0x8000 : 0) | 1);
    else if ((x < y) == (x > O(0))) ++bits;
    else --bits;
    S r;
    r.bits = bits;
    return static_cast<O>(r);
  } else {
    return std::nextafter(x, y);
  }
}

// gcd of |a| and |b| (Euclid); gcd(0, 0) = 0. lcm: |a / gcd * b|, 0 when gcd is 0.
template <typename T>
EMBER_HOST_DEVICE inline T gcd_value(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    a = a < T(0) ? T(-a) : a;
    b = b < T(0) ? T(-b) : b;
  }
  while (a != T(0)) {
    T c = a;
    a = static_cast<T>(b % a);
    b = c;
  }
  return b;
}

template <typename T>
EMBER_HOST_DEVICE inline T lcm_value(T a, T b) {
  T g = gcd_value(a, b);
  if (g == T(0)) return T(0);
  auto r = a / g * b;  // in the promoted type, then |r| and the cast, as PyTorch
  if constexpr (std::is_signed_v<decltype(r)>) r = r < 0 ? -r : r;
  return static_cast<T>(r);
}

}  // namespace ember
