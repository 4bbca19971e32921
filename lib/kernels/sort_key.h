// Note [Sort keys]: each element becomes an unsigned key whose integer order is
// Note [NaN order] (lib/cpu/sort.cpp): a float's bits are flipped to
// two's-complement order, -0.0 counts as 0.0, every NaN is the largest key; a
// signed integer has its sign bit flipped. Descending order uses ~key. Shared by
// the CPU sort (lib/cpu/sort.cpp) and the CUDA radix sorts (lib/cuda/sort/), so
// both order alike.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/element_types.h"

namespace ember {

template <typename T>
using sort_key_t = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;

namespace detail {
EMBER_HOST_DEVICE inline uint64_t double_bits(double d) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(d));
#else
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
#endif
}
}  // namespace detail

template <typename T>
EMBER_HOST_DEVICE inline sort_key_t<T> sort_key(T v) {
  using U = sort_key_t<T>;
  if constexpr (is_float_v<T>) {
    using F = std::conditional_t<sizeof(T) == 8, double, float>;
    F f = static_cast<F>(v);
    if (f != f) return ~U(0);  // NaN
    if (f == 0) f = 0;         // -0.0 sorts with 0.0
    U u;
    if constexpr (sizeof(F) == 8) u = detail::double_bits(f);
    else u = detail::float_bits(f);
    constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
    return (u & sign) ? ~u : (u | sign);
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<U>(static_cast<U>(static_cast<int64_t>(v)) ^ (U(1) << (sizeof(U) * 8 - 1)));
  } else {
    return static_cast<U>(v);
  }
}

}  // namespace ember
