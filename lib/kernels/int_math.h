// Integer arithmetic with PyTorch's results and no undefined behaviour: sums
// and products wrap around (two's complement), INT_MIN / -1 does not trap,
// shifts by too much or by a negative amount give 0 (or the sign).
// Non-integer types pass through to the plain operators, so kernels can call
// these for every dtype.
#pragma once
#include <cstdint>
#include <type_traits>

#include "ember/half.h"  // EMBER_HOST_DEVICE

namespace ember {

template <typename T>
constexpr bool is_wrapping_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// An unsigned type at least as wide as T and as int (so that nothing promotes to a signed int).
template <typename T>
using wide_unsigned_t = std::conditional_t<(sizeof(T) < sizeof(uint32_t)), uint32_t, std::make_unsigned_t<T>>;

template <typename T>
EMBER_HOST_DEVICE inline auto wrap_add(T a, T b) {
  if constexpr (is_wrapping_int_v<T>) {
    using U = wide_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <typename T>
EMBER_HOST_DEVICE inline auto wrap_sub(T a, T b) {
  if constexpr (is_wrapping_int_v<T>) {
    using U = wide_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}

template <typename T>
EMBER_HOST_DEVICE inline auto wrap_mul(T a, T b) {
  if constexpr (is_wrapping_int_v<T>) {
    using U = wide_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    return a * b;
  }
}

// -a; the most negative value stays itself instead of overflowing.
template <typename T>
EMBER_HOST_DEVICE inline T wrap_neg(T a) {
  if constexpr (is_wrapping_int_v<T>) return wrap_sub(T(0), a);
  else return -a;
}

// Division and remainder for b != 0 (the kernels check), rounding toward zero.
template <typename T>
EMBER_HOST_DEVICE inline T div_trunc_int(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return wrap_sub(T(0), a);
  }
  return static_cast<T>(a / b);
}

template <typename T>
EMBER_HOST_DEVICE inline T rem_int(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return static_cast<T>(a % b);
}

// Rounding toward -inf, as Python's //.
template <typename T>
EMBER_HOST_DEVICE inline T div_floor_int(T a, T b) {
  T q = div_trunc_int(a, b);
  if constexpr (std::is_signed_v<T>) {
    if (rem_int(a, b) != 0 && ((a < 0) != (b < 0))) return static_cast<T>(q - 1);
  }
  return q;
}

// The remainder with the sign of b, as Python's % (b != 0).
template <typename T>
EMBER_HOST_DEVICE inline T rem_floor_int(T a, T b) {
  T mod = rem_int(a, b);
  if constexpr (std::is_signed_v<T>) {
    if (mod != 0 && (b < 0) != (mod < 0)) mod = static_cast<T>(mod + b);
  }
  return mod;
}

// a ** b by squaring; a negative b gives 1, +-1 or 0 as the true value truncates.
template <typename T>
EMBER_HOST_DEVICE inline T powi(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) {
      if (a == 1) return 1;
      if (a == -1) return (b % 2 == 0) ? 1 : -1;
      return 0;
    }
  }
  using U = wide_unsigned_t<T>;
  U result = 1, base = static_cast<U>(a);
  for (U e = static_cast<U>(b); e != 0; e >>= 1) {
    if (e & 1u) result *= base;
    base *= base;
  }
  return static_cast<T>(result);
}

// Shifts by a negative amount or by the width or more: << gives 0, >> gives the sign fill.
template <typename T>
EMBER_HOST_DEVICE inline T shift_left(T a, T b) {
  constexpr int64_t bits = sizeof(T) * 8;
  int64_t n = static_cast<int64_t>(b);
  if (n < 0 || n >= bits) return 0;
  return static_cast<T>(static_cast<wide_unsigned_t<T>>(a) << n);
}

template <typename T>
EMBER_HOST_DEVICE inline T shift_right(T a, T b) {
  constexpr int64_t bits = sizeof(T) * 8;
  int64_t n = static_cast<int64_t>(b);
  if (n < 0 || n >= bits) return std::is_signed_v<T> ? static_cast<T>(a < 0 ? -1 : 0) : T(0);
  return static_cast<T>(a >> n);
}

}  // namespace ember
