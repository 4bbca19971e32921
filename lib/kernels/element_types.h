// The element types' arithmetic rules, shared by the CPU and CUDA kernels:
// opmath_t (float16 and bfloat16 compute in float, as PyTorch does) and convert
// (how a cast of tensors converts one element). Host and device code use these
// same definitions, so both backends round and cast alike.
#pragma once
#include <type_traits>

#include "ember/half.h"

namespace ember {

template <typename T> struct OpMath { using type = T; };
template <> struct OpMath<Half> { using type = float; };
template <> struct OpMath<BFloat16> { using type = float; };
template <typename T> using opmath_t = typename OpMath<T>::type;

template <typename T>
constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <typename T>
constexpr bool is_float_v = std::is_floating_point_v<T> || is_reduced_float_v<T>;

// Converts between element types the way a cast of tensors does (bool is v != 0).
template <typename To, typename From>
EMBER_HOST_DEVICE inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) return v;
  else if constexpr (std::is_same_v<To, bool>) return static_cast<opmath_t<From>>(v) != 0;
  else if constexpr (is_reduced_float_v<From>) return convert<To>(static_cast<float>(v));
  else if constexpr (is_reduced_float_v<To>) return To(static_cast<float>(v));
  else return static_cast<To>(v);
}

}  // namespace ember
