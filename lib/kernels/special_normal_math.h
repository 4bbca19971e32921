// Per-element formulas of torch.special's normal-distribution functions: erfcx (the
// scaled complementary error function e^(x^2) erfc(x)), ndtri (the inverse of the
// standard normal CDF) and log_ndtr (the log of that CDF, accurate in both tails).
// Shared by the generated CPU and CUDA kernels; opmath values in, opmath out.
#pragma once
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/element_types.h"
#include "kernels/special_bessel_math.h"  // bessel_detail::horner

namespace ember {
namespace normal_detail {

// e^(x^2) without the rounding of x^2 itself: x^2 = t + e exactly (e by an fma), and
// e^(t + e) = e^t (1 + e) as |e| is below half an ulp of t.
EMBER_HOST_DEVICE inline double exp_of_square(double x) {
  double t = x * x;
  double e = std::fma(x, x, -t);
  return std::exp(t) * (1.0 + e);
}

// erfcx for x >= 0 in double: e^(x^2) erfc(x) while erfc is a normal number (it keeps
// its relative accuracy there), then Laplace's continued fraction
// erfc(x) e^(x^2) = (1 / sqrt(pi)) / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...)))),
// which converges to double precision in a few terms for x >= 25.
EMBER_HOST_DEVICE inline double erfcx_nonnegative(double x) {
  const double one_over_sqrt_pi = 0.56418958354775628694807945156;
  if (x < 25.0) return exp_of_square(x) * std::erfc(x);
  if (x > 5e7) return one_over_sqrt_pi / x;  // the next term is below double's precision
  double f = x;
  for (int k = 24; k >= 1; --k) f = x + (0.5 * k) / f;
  return one_over_sqrt_pi / f;
}

EMBER_HOST_DEVICE inline double erfcx_double(double x) {
  if (x != x) return x;
  if (x >= 0.0) return erfcx_nonnegative(x);
  // erfcx(x) = 2 e^(x^2) - erfcx(-x); the second term is negligible below -6.1 and
  // the first overflows below -26.7.
  if (x < -26.7) return std::numeric_limits<double>::infinity();
  if (x < -6.1) return 2.0 * exp_of_square(x);
  return 2.0 * exp_of_square(x) - erfcx_nonnegative(-x);
}

}  // namespace normal_detail

// Computed in double for every dtype (float's own e^(x^2) erfc(x) would lose all
// precision from x ~ 9 on, where erfc underflows), then rounded once.
template <typename T>
EMBER_HOST_DEVICE inline T erfcx_value(T x) {
  return static_cast<T>(normal_detail::erfcx_double(static_cast<double>(x)));
}

// The x with Phi(x) = y (Cephes' ndtri, as PyTorch): -inf at 0, inf at 1, nan outside
// [0, 1]; a rational function of (y - 1/2)^2 in the middle, of 1 / sqrt(-2 log y) in
// the tails (y or 1 - y below e^-2).
template <typename T>
EMBER_HOST_DEVICE inline T ndtri_value(T y0) {
  using bessel_detail::horner;
  const T p0[] = {
      T(-5.99633501014107895267E1), T(9.80010754185999661536E1), T(-5.66762857469070293439E1), T(1.39312609387279679503E1),
      T(-1.23916583867381258016E0)};
  const T q0[] = {
      T(1.00000000000000000000E0), T(1.95448858338141759834E0), T(4.67627912898881538453E0), T(8.63602421390890590575E1),
      T(-2.25462687854119370527E2), T(2.00260212380060660359E2), T(-8.20372256168333339912E1), T(1.59056225126211695515E1),
      T(-1.18331621121330003142E0)};
  const T p1[] = {
      T(4.05544892305962419923E0), T(3.15251094599893866154E1), T(5.71628192246421288162E1), T(4.40805073893200834700E1),
      T(1.46849561928858024014E1), T(2.18663306850790267539E0), T(-1.40256079171354495875E-1), T(-3.50424626827848203418E-2),
      T(-8.57456785154685413611E-4)};
  const T q1[] = {
      T(1.00000000000000000000E0), T(1.57799883256466749731E1), T(4.53907635128879210584E1), T(4.13172038254672030440E1),
      T(1.50425385692907503408E1), T(2.50464946208309415979E0), T(-1.42182922854787788574E-1), T(-3.80806407691578277194E-2),
      T(-9.33259480895457427372E-4)};
  const T p2[] = {
      T(3.23774891776946035970E0), T(6.91522889068984211695E0), T(3.93881025292474443415E0), T(1.33303460815807542389E0),
      T(2.01485389549179081538E-1), T(1.23716634817820021358E-2), T(3.01581553508235416007E-4), T(2.65806974686737550832E-6),
      T(6.23974539184983293730E-9)};
  const T q2[] = {
      T(1.00000000000000000000E0), T(6.02427039364742014255E0), T(3.67983563856160859403E0), T(1.37702099489081330271E0),
      T(2.16236993594496635890E-1), T(1.34204006088543189037E-2), T(3.28014464682127739104E-4), T(2.89247864745380683936E-6),
      T(6.79019408009981274425E-9)};
  const T exp_minus_2 = T(0.13533528323661269189);
  if (y0 == T(0)) return -std::numeric_limits<T>::infinity();
  if (y0 == T(1)) return std::numeric_limits<T>::infinity();
  if (!(y0 > T(0) && y0 < T(1))) return std::numeric_limits<T>::quiet_NaN();
  bool lower_tail = true;
  T y = y0;
  if (y > T(1) - exp_minus_2) {
    y = T(1) - y;
    lower_tail = false;
  }
  if (y > exp_minus_2) {
    y = y - T(0.5);
    T y2 = y * y;
    T x = y + y * (y2 * horner(y2, p0) / horner(y2, q0));
    return x * T(2.50662827463100050242E0);  // sqrt(2 pi)
  }
  T x = std::sqrt(T(-2) * std::log(y));
  T x0 = x - std::log(x) / x;
  T z = T(1) / x;
  T x1 = x < T(8) ? z * horner(z, p1) / horner(z, q1) : z * horner(z, p2) / horner(z, q2);
  x = x0 - x1;
  return lower_tail ? -x : x;
}

// log Phi(x): log(erfcx(-x / sqrt 2) / 2) - x^2 / 2 below -1 (no underflow in the left
// tail), log1p(-erfc(x / sqrt 2) / 2) above (no cancellation in the right one).
template <typename T>
EMBER_HOST_DEVICE inline T log_ndtr_value(T x) {
  T t = x * T(0.707106781186547524400844362104849039);
  if (x < T(-1)) return std::log(erfcx_value(-t) / T(2)) - t * t;
  return std::log1p(-std::erfc(t) / T(2));
}

}  // namespace ember
