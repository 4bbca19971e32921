// The per-element formulas of the elementwise ops, shared by the CPU kernels
// (lib/cpu/) and the CUDA kernels (lib/cuda/elementwise/) so that both backends
// compute each element alike. They take opmath values (float for float16 and
// bfloat16, kernels/element_types.h); integer arithmetic is in kernels/int_math.h.
// (The CPU's dense float32 rows use the vectorizable versions of cpu/vec_math.h.)
#pragma once
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/element_types.h"
#include "kernels/int_math.h"

namespace ember {

// ---- predicates (a bool of any dtype's opmath value) ---------------------------------------

template <typename T>
EMBER_HOST_DEVICE inline bool isnan_value(T x) { return x != x; }
template <typename T>
EMBER_HOST_DEVICE inline bool isinf_value(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::abs(x) == std::numeric_limits<T>::infinity();
  else return false;
}
template <typename T>
EMBER_HOST_DEVICE inline bool isfinite_value(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::abs(x) < std::numeric_limits<T>::infinity();
  else return true;
}
template <typename T>
EMBER_HOST_DEVICE inline bool logical_not_value(T x) { return x == T(0); }

// ---- sign, magnitude, rounding ---------------------------------------------------------

template <typename T>
EMBER_HOST_DEVICE inline T abs_value(T x) {
  if constexpr (std::is_unsigned_v<T>) return x;
  else if constexpr (std::is_integral_v<T>) return x < 0 ? wrap_neg(x) : x;
  else return std::abs(x);
}

// -1, 0 or 1; nan gives 0 as in PyTorch.
template <typename T>
EMBER_HOST_DEVICE inline T sign_value(T x) {
  if constexpr (std::is_same_v<T, bool>) return x;
  else if constexpr (std::is_unsigned_v<T>) return static_cast<T>(T(0) < x);
  else return static_cast<T>((T(0) < x) - (x < T(0)));
}

// Half to even (nearbyint in the default rounding mode). With decimals, PyTorch's
// formula: scale by s = 10^|decimals|, round, scale back (divide first when
// decimals < 0).
template <typename T>
EMBER_HOST_DEVICE inline T round_half_even(T x) { return std::nearbyint(x); }
template <typename T>
EMBER_HOST_DEVICE inline T round_decimals(T x, T s, bool negative) {
  return negative ? std::nearbyint(x / s) * s : std::nearbyint(x * s) / s;
}

// ---- division ---------------------------------------------------------------------------

// Python's floor division on floats, as PyTorch computes it (exact where a / b
// would round across an integer).
template <typename T>
EMBER_HOST_DEVICE inline T div_floor_float(T a, T b) {
  if (b == 0) return a / b;
  T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= T(1);
  if (div == 0) return std::copysign(T(0), a / b);
  T floored = std::floor(div);
  return div - floored > T(0.5) ? floored + T(1) : floored;
}

// The float remainder with the sign of b (Python's %, torch.remainder).
template <typename T>
EMBER_HOST_DEVICE inline T rem_floor_float(T a, T b) {
  T mod = std::fmod(a, b);
  if (mod != 0 && (b < 0) != (mod < 0)) mod += b;
  return mod;
}

// ---- bounds -----------------------------------------------------------------------------

// min(max(x, lo), hi) as PyTorch: a nan (in x or in a bound) gives nan; with lo > hi
// the result is hi.
template <typename T>
EMBER_HOST_DEVICE inline T clamp_value(T x, T lo, T hi) {
  if constexpr (std::is_floating_point_v<T>) {
    if (x != x) return x;
    if (lo != lo) return lo;
    if (hi != hi) return hi;
  }
  T y = x < lo ? lo : x;
  return hi < y ? hi : y;
}

// A bound given as a double, as T: for an integer T clamped to T's range first
// (casting an out-of-range double is undefined; a bound below every value of T
// bounds nothing, as in torch, which compares in a wider type). Truncated toward 0.
template <typename T>
EMBER_HOST_DEVICE inline T saturating_bound(double v) {
  if constexpr (std::is_integral_v<T>) {
    if (!(v > static_cast<double>(std::numeric_limits<T>::lowest()))) return std::numeric_limits<T>::lowest();
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  }
  return static_cast<T>(v);
}

// The bound standing in for a missing one of clamp: -inf / +inf, or an integer
// type's extremes (host only).
template <typename T>
T open_bound(bool upper) {
  if constexpr (std::is_floating_point_v<T>)
    return upper ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
  else
    return upper ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
}

// The largest finite value of T (host only), as a float for the reduced types:
// what nan_to_num puts for +inf by default.
template <typename T>
opmath_t<T> max_finite() {
  if constexpr (std::is_same_v<T, Half>) return 65504.0f;
  else if constexpr (std::is_same_v<T, BFloat16>) return 3.38953139e38f;
  else return std::numeric_limits<T>::max();
}

// maximum / minimum: a nan in either input gives nan.
template <bool kMax, typename T>
EMBER_HOST_DEVICE inline T extremum_value(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    if (x != x) return x;
    if (y != y) return y;
  }
  return (kMax ? x > y : x < y) ? x : y;
}

// nan_to_num: nan, +inf and -inf replaced by the given values.
template <typename T>
EMBER_HOST_DEVICE inline T nan_to_num_value(T x, T nan, T posinf, T neginf) {
  const T inf = std::numeric_limits<T>::infinity();
  return x != x ? nan : x == inf ? posinf : x == -inf ? neginf : x;
}

// ---- activations ------------------------------------------------------------------------

// x < 0 ? 0 : x keeps nan and -0.0 as PyTorch does.
template <typename T>
EMBER_HOST_DEVICE inline T relu_value(T x) {
  if constexpr (std::is_unsigned_v<T>) return x;
  else return x < T(0) ? T(0) : x;
}

template <typename T>
EMBER_HOST_DEVICE inline T sigmoid_value(T x) { return T(1) / (T(1) + std::exp(-x)); }

template <typename T>
EMBER_HOST_DEVICE inline T silu_value(T x) { return x / (T(1) + std::exp(-x)); }

// x Phi(x), as x erfc(-x / sqrt 2) / 2 (no cancellation in the negative tail).
template <typename T>
EMBER_HOST_DEVICE inline T gelu_value(T x) {
  return T(0.5) * x * std::erfc(x * T(-0.707106781186547524400844362104849039));
}

// The tanh form x (1 + tanh u) / 2, u = sqrt(2/pi) (x + 0.044715 x^3), written
// as x sigmoid(2u): the same function without 1 + tanh cancelling.
template <typename T>
EMBER_HOST_DEVICE inline T gelu_tanh_value(T x) {
  T inner = T(0.797884560802865355879892119868763737) * (x + T(0.044715) * x * x * x);
  return x / (T(1) + std::exp(-(inner + inner)));
}

// log(1 + exp(beta x)) / beta, or x itself where beta x > threshold (PyTorch's formula).
template <typename T>
EMBER_HOST_DEVICE inline T softplus_value(T x, T beta, T threshold) {
  T bx = x * beta;
  return bx > threshold ? x : std::log1p(std::exp(bx)) / beta;
}

template <typename T>
EMBER_HOST_DEVICE inline T leaky_relu_value(T x, T slope) { return x > T(0) ? x : x * slope; }

}  // namespace ember
