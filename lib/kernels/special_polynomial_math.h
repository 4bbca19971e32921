// Per-element formulas of torch.special's classical orthogonal polynomials, each
// p_n(x) for a floating x and a degree n given as a value of x's type (truncated
// toward zero, as PyTorch): Chebyshev T, U, V, W and their shifted forms on [0, 1],
// physicists' and probabilists' Hermite H and He, Laguerre L and Legendre P.
// A negative degree gives 0, as PyTorch, and so does a non-finite one (the integer
// PyTorch's cast makes of it is negative). Values come from the three-term recurrence,
// or for Chebyshev of high degree inside (-1, 1) from the trigonometric closed form
// (cos(n acos x), ...), PyTorch's choice. Shared by the CPU and CUDA kernels
// (cpu/special_binary.cpp, cuda/elementwise/special_binary.cu).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/element_types.h"

namespace ember {
namespace polynomial_detail {

// The degree as PyTorch's int64 cast gives it: -1 (so the result is 0) for nan, +-inf
// and magnitudes past int64's range, where the cast itself is undefined in C++.
template <typename T>
EMBER_HOST_DEVICE inline int64_t degree_of(T n) {
  if (!(std::abs(n) < T(9.2e18))) return -1;
  return static_cast<int64_t>(n);
}

// p_n from p_0 = 1, p_1 = first, p_{k+1} = 2 y p_k - p_{k-1} (every Chebyshev kind),
// stopping early once the value is nan.
template <typename T>
EMBER_HOST_DEVICE inline T chebyshev_recurrence(T y, int64_t n, T first) {
  if (n == 0) return T(1);
  T p = T(1), q = first;
  for (int64_t k = 2; k <= n && q == q; ++k) {
    T r = (y + y) * q - p;
    p = q;
    q = r;
  }
  return q;
}

// T_n(y); `trig_from`: the degree above which the closed form is used inside (-1, 1).
template <typename T>
EMBER_HOST_DEVICE inline T chebyshev_t(T y, int64_t n, int64_t trig_from) {
  if (n < 0) return T(0);
  if (std::abs(y) == T(1)) return (y > T(0) || n % 2 == 0) ? T(1) : T(-1);
  if (n > trig_from && std::abs(y) < T(1)) return std::cos(T(n) * std::acos(y));
  return chebyshev_recurrence(y, n, y);
}

// U_n(y) = sin((n + 1) theta) / sin(theta), y = cos(theta); n + 1 at 1, (-1)^n (n + 1) at -1.
template <typename T>
EMBER_HOST_DEVICE inline T chebyshev_u(T y, int64_t n, int64_t trig_from) {
  if (n < 0) return T(0);
  if (std::abs(y) == T(1)) return (y > T(0) || n % 2 == 0) ? T(n + 1) : T(-(n + 1));
  if (n > trig_from && std::abs(y) < T(1)) {
    T theta = std::acos(y);
    if (std::sin(theta) != T(0)) return std::sin(T(n + 1) * theta) / std::sin(theta);
    return T(n + 1) * std::cos(T(n + 1) * theta) / y;
  }
  return chebyshev_recurrence(y, n, y + y);
}

// V_n(y) = cos((n + 1/2) theta) / cos(theta / 2); 1 at 1, (-1)^n (2n + 1) at -1.
template <typename T>
EMBER_HOST_DEVICE inline T chebyshev_v(T y, int64_t n, int64_t trig_from) {
  if (n < 0) return T(0);
  T at_minus_one = n % 2 == 0 ? T(n + n + 1) : T(-(n + n + 1));
  if (std::abs(y) == T(1)) return y > T(0) ? T(1) : at_minus_one;
  if (n > trig_from && std::abs(y) < T(1)) {
    T theta = std::acos(y);
    if (std::sin(theta / T(2)) != T(1)) return std::cos((T(n) + T(0.5)) * theta) / std::cos(theta / T(2));
    return at_minus_one;
  }
  return chebyshev_recurrence(y, n, y + y - T(1));
}

// W_n(y) = sin((n + 1/2) theta) / sin(theta / 2); 2n + 1 at 1, (-1)^n at -1.
template <typename T>
EMBER_HOST_DEVICE inline T chebyshev_w(T y, int64_t n, int64_t trig_from) {
  if (n < 0) return T(0);
  T at_minus_one = n % 2 == 0 ? T(1) : T(-1);
  if (std::abs(y) == T(1)) return y > T(0) ? T(n + n + 1) : at_minus_one;
  if (n > trig_from && std::abs(y) < T(1)) {
    T theta = std::acos(y);
    if (std::cos(theta / T(2)) != T(1)) return std::sin((T(n) + T(0.5)) * theta) / std::sin(theta / T(2));
    return y > T(0) ? T(n + n + 1) : at_minus_one;
  }
  return chebyshev_recurrence(y, n, y + y + T(1));
}

// The Hermite recurrences overflow long before these degrees; PyTorch gives nan past them.
template <typename T>
EMBER_HOST_DEVICE inline int64_t hermite_limit() {
  return sizeof(T) == 4 ? 128 : 512;
}

}  // namespace polynomial_detail

template <typename T>
EMBER_HOST_DEVICE inline T chebyshev_polynomial_t_value(T x, T n) {
  return polynomial_detail::chebyshev_t(x, polynomial_detail::degree_of(n), 6);
}
template <typename T>
EMBER_HOST_DEVICE inline T chebyshev_polynomial_u_value(T x, T n) {
  return polynomial_detail::chebyshev_u(x, polynomial_detail::degree_of(n), 8);
}
template <typename T>
EMBER_HOST_DEVICE inline T chebyshev_polynomial_v_value(T x, T n) {
  return polynomial_detail::chebyshev_v(x, polynomial_detail::degree_of(n), 8);
}
template <typename T>
EMBER_HOST_DEVICE inline T chebyshev_polynomial_w_value(T x, T n) {
  return polynomial_detail::chebyshev_w(x, polynomial_detail::degree_of(n), 8);
}

// The shifted polynomials: the same at 2x - 1 (PyTorch's switch to the closed form
// comes at degree 6 for T, U, V and 4 for W).
template <typename T>
EMBER_HOST_DEVICE inline T shifted_chebyshev_polynomial_t_value(T x, T n) {
  return polynomial_detail::chebyshev_t(x + x - T(1), polynomial_detail::degree_of(n), 6);
}
template <typename T>
EMBER_HOST_DEVICE inline T shifted_chebyshev_polynomial_u_value(T x, T n) {
  return polynomial_detail::chebyshev_u(x + x - T(1), polynomial_detail::degree_of(n), 6);
}
template <typename T>
EMBER_HOST_DEVICE inline T shifted_chebyshev_polynomial_v_value(T x, T n) {
  return polynomial_detail::chebyshev_v(x + x - T(1), polynomial_detail::degree_of(n), 6);
}
template <typename T>
EMBER_HOST_DEVICE inline T shifted_chebyshev_polynomial_w_value(T x, T n) {
  return polynomial_detail::chebyshev_w(x + x - T(1), polynomial_detail::degree_of(n), 4);
}

// H_{k+1} = 2x H_k - 2k H_{k-1}.
template <typename T>
EMBER_HOST_DEVICE inline T hermite_polynomial_h_value(T x, T degree) {
  int64_t n = polynomial_detail::degree_of(degree);
  if (n < 0) return T(0);
  if (n == 0) return T(1);
  if (n == 1) return x + x;
  if (n > polynomial_detail::hermite_limit<T>()) return std::numeric_limits<T>::quiet_NaN();
  T p = T(1), q = x + x;
  for (int64_t k = 1; k < n; ++k) {
    T r = (x + x) * q - T(2 * k) * p;
    p = q;
    q = r;
  }
  return q;
}

// He_{k+1} = x He_k - k He_{k-1}.
template <typename T>
EMBER_HOST_DEVICE inline T hermite_polynomial_he_value(T x, T degree) {
  int64_t n = polynomial_detail::degree_of(degree);
  if (n < 0) return T(0);
  if (n == 0) return T(1);
  if (n == 1) return x;
  if (n > polynomial_detail::hermite_limit<T>()) return std::numeric_limits<T>::quiet_NaN();
  T p = T(1), q = x;
  for (int64_t k = 1; k < n; ++k) {
    T r = x * q - T(k) * p;
    p = q;
    q = r;
  }
  return q;
}

// (k + 1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}; 1 at x = 0.
template <typename T>
EMBER_HOST_DEVICE inline T laguerre_polynomial_l_value(T x, T degree) {
  int64_t n = polynomial_detail::degree_of(degree);
  if (n < 0) return T(0);
  if (x == T(0) || n == 0) return T(1);
  T p = T(1), q = T(1) - x;
  for (int64_t k = 1; k < n && q == q; ++k) {
    T r = ((T(k + k) + (T(1) - x)) * q - T(k) * p) / T(k + 1);
    p = q;
    q = r;
  }
  return q;
}

// (k + 1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}; 1 at 1, (-1)^n at -1.
template <typename T>
EMBER_HOST_DEVICE inline T legendre_polynomial_p_value(T x, T degree) {
  int64_t n = polynomial_detail::degree_of(degree);
  if (n < 0) return T(0);
  if (std::abs(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(1) : T(-1);
  if (n == 0) return T(1);
  T p = T(1), q = x;
  for (int64_t k = 1; k < n && q == q; ++k) {
    T r = (T(k + k + 1) * x * q - T(k) * p) / T(k + 1);
    p = q;
    q = r;
  }
  return q;
}

}  // namespace ember
