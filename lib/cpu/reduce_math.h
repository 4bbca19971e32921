// Inner loops of the reduce group's kernels, written so that the compiler
// vectorizes them: several independent accumulators per loop (lanes_reduce),
// pairwise float sums (pairwise_sum), a branch-free exp for float (exp_float)
// and NaN-propagating max/min.
#pragma once
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/dtype_dispatch.h"
#include "cpu/vec_math.h"

// The build targets plain x86-64 (SSE2). Compute-bound loops (those with an
// exp) are also compiled for AVX-512 and AVX2, and the loader picks the best
// one the CPU has (GCC function multi-versioning).
// GCC inlines into such a clone only what is marked always_inline (the
// helpers below, and the lambdas the clones pass to them).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(EMBER_NO_CLONES)
#define EMBER_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define EMBER_VECTOR_CLONES
#endif
#if defined(__GNUC__)
#define EMBER_ALWAYS_INLINE __attribute__((always_inline))
#else
#define EMBER_ALWAYS_INLINE
#endif

namespace ember::cpu {

// float16 / bfloat16 <-> float without branches, so loops over them vectorize
// (Half's own conversions branch on subnormals). Round to nearest even, as Half.
// After Maratyszcza's FP16 library.
EMBER_ALWAYS_INLINE inline float half_to_float(Half h) {
  const uint32_t w = static_cast<uint32_t>(h.bits) << 16;
  const uint32_t sign = w & 0x80000000u, two_w = w + w;
  const float normalized = std::bit_cast<float>((two_w >> 4) + (0xE0u << 23)) * 0x1.0p-112f;
  const float denormalized = std::bit_cast<float>((two_w >> 17) | (126u << 23)) - 0.5f;
  const uint32_t m = -static_cast<uint32_t>(two_w < (1u << 27));
  return std::bit_cast<float>(sign | (std::bit_cast<uint32_t>(denormalized) & m) |
                              (std::bit_cast<uint32_t>(normalized) & ~m));
}
EMBER_ALWAYS_INLINE inline Half float_to_half(float f) {
  // Every value is computed and the NaN case picked by a mask: a ?: would make
  // GCC guard the (possibly overflowing) multiply and give up vectorizing.
  float base = (std::fabs(f) * 0x1.0p+112f) * 0x1.0p-110f;
  const uint32_t w = std::bit_cast<uint32_t>(f), shl1_w = w + w, sign = w & 0x80000000u;
  const uint32_t bias = std::max(shl1_w & 0xFF000000u, 0x71000000u);
  base = std::bit_cast<float>((bias >> 1) + 0x07800000u) + base;
  const uint32_t bits = std::bit_cast<uint32_t>(base);
  const uint32_t nonsign = ((bits >> 13) & 0x00007C00u) + (bits & 0x00000FFFu);
  const uint32_t nan = -static_cast<uint32_t>(shl1_w > 0xFF000000u);
  Half h;
  h.bits = static_cast<uint16_t>((sign >> 16) | (0x7E00u & nan) | (nonsign & ~nan));
  return h;
}
EMBER_ALWAYS_INLINE inline float bfloat16_to_float(BFloat16 b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b.bits) << 16);
}
EMBER_ALWAYS_INLINE inline BFloat16 float_to_bfloat16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16, quiet_nan = (x >> 16) | 0x40u;
  BFloat16 b;
  b.bits = static_cast<uint16_t>((x & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
  return b;
}

// An element read as the accumulator type A (float16/bfloat16 through float).
template <typename A, typename T>
EMBER_ALWAYS_INLINE inline A load(T v) {
  if constexpr (std::is_same_v<T, Half>) return static_cast<A>(half_to_float(v));
  else if constexpr (std::is_same_v<T, BFloat16>) return static_cast<A>(bfloat16_to_float(v));
  else return static_cast<A>(v);
}
// An accumulator value stored as element type T (what convert<T> does, faster).
template <typename T, typename A>
EMBER_ALWAYS_INLINE inline T store(A v) {
  if constexpr (std::is_same_v<T, Half>) return float_to_half(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, BFloat16>) return float_to_bfloat16(static_cast<float>(v));
  else return convert<T>(v);
}

// v cast to the accumulator type, as a functor.
template <typename Acc>
struct CastTo {
  template <typename T>
  EMBER_ALWAYS_INLINE Acc operator()(T v) const { return load<Acc>(v); }
};

// c ? a : b without a branch. GCC keeps a ?: on floats as a branch (its
// comparison may trap under the default -ftrapping-math), which stops the loop
// from vectorizing; a bit mask does not.
template <typename A>
EMBER_ALWAYS_INLINE inline A select(bool c, A a, A b) {
  if constexpr (std::is_same_v<A, float> || std::is_same_v<A, double>) {
    using I = std::conditional_t<sizeof(A) == 4, int32_t, int64_t>;
    I m = -static_cast<I>(c);
    return std::bit_cast<A>((std::bit_cast<I>(a) & m) | (std::bit_cast<I>(b) & ~m));
  } else {
    return c ? a : b;
  }
}

// Whether v beats a for max (Max) or min (!Max); NaN beats every number (so it
// propagates as in PyTorch) but not an earlier NaN (so argmax finds the first).
template <bool Max, typename A>
EMBER_ALWAYS_INLINE inline bool beats(A v, A a) {
  if constexpr (std::is_floating_point_v<A>) return (Max ? v > a : v < a) | ((v != v) & (a == a));
  else return Max ? v > a : v < a;
}
template <bool Max, typename A>
EMBER_ALWAYS_INLINE inline A pick(A a, A v) { return select(beats<Max>(v, a), v, a); }

constexpr int64_t kPairwiseBlock = 4096;

// Folds map(p[0..n)) with op into init, with K independent lanes (K vectors'
// worth of accumulators hide the latency of op), lanes combined as a tree.
template <typename Acc, typename T, typename Map, typename Op>
EMBER_ALWAYS_INLINE inline Acc lanes_reduce(const T* p, int64_t n, Acc init, const Map& map, const Op& op) {
  constexpr int K = sizeof(Acc) >= 8 ? 16 : 32;
  int64_t i = 0;
  if (n >= K) {
    Acc acc[K];
    for (int k = 0; k < K; ++k) acc[k] = map(p[k]);
    for (i = K; i + K <= n; i += K)
      for (int k = 0; k < K; ++k) acc[k] = op(acc[k], map(p[i + k]));
    for (int w = K / 2; w > 0; w /= 2)
      for (int k = 0; k < w; ++k) acc[k] = op(acc[k], acc[k + w]);
    init = op(init, acc[0]);
  }
  for (const T *q = p + i, *end = p + n; q < end; ++q) init = op(init, map(*q));
  return init;
}

// sum of map(p[i]): blocks of kPairwiseBlock summed with lanes, block sums
// combined pairwise (a binary counter: levels[k] holds the sum of 2^k blocks),
// so the error grows with log(n) rather than n. No recursion, so it inlines
// into the vectorized clones of its callers.
template <typename Acc, typename T, typename Map>
EMBER_ALWAYS_INLINE inline Acc pairwise_sum(const T* p, int64_t n, const Map& map) {
  auto plus = [](Acc a, Acc b) EMBER_ALWAYS_INLINE { return a + b; };
  if (n <= kPairwiseBlock) return lanes_reduce(p, n, Acc(0), map, plus);
  Acc levels[64];
  uint64_t occupied = 0;  // bit k: levels[k] holds a partial sum
  for (int64_t b = 0; b < n; b += kPairwiseBlock) {
    Acc x = lanes_reduce(p + b, std::min(kPairwiseBlock, n - b), Acc(0), map, plus);
    int k = 0;
    for (; occupied >> k & 1; ++k) x = levels[k] + x;
    occupied = (occupied & ~((uint64_t(1) << k) - 1)) | (uint64_t(1) << k);
    levels[k] = x;
  }
  Acc total = 0;
  for (int k = 63; k >= 0; --k)
    if (occupied >> k & 1) total += levels[k];
  return total;
}

// pairwise_sum compiled for wide vectors too: a single SSE2 core cannot keep up
// with memory bandwidth on a sum.
template <typename Acc, typename T, typename Map>
EMBER_VECTOR_CLONES Acc pairwise_sum_wide(const T* p, int64_t n, Map map) {
  return pairwise_sum<Acc>(p, n, map);
}

// max (Max) or min of init and map(p[0..n)), NaN propagating. For floats the
// lanes keep a plain max and, beside it, whether they saw a NaN: cheaper than a
// NaN-aware compare per element. Memory-bound once vectorized wide enough.
template <bool Max, typename A, typename T, typename Map>
EMBER_ALWAYS_INLINE inline A minmax_lanes_impl(const T* p, int64_t n, A init, const Map& map) {
  if constexpr (!std::is_floating_point_v<A>) {
    return lanes_reduce(p, n, init, map, [](A a, A b) EMBER_ALWAYS_INLINE { return pick<Max>(a, b); });
  } else {
    using I = std::conditional_t<sizeof(A) == 8, int64_t, int32_t>;
    constexpr int K = sizeof(A) == 8 ? 16 : 32;
    I nan = init != init;
    int64_t i = 0;
    if (n >= K) {
      A acc[K];
      I bad[K];
      for (int k = 0; k < K; ++k) {
        acc[k] = map(p[k]);
        bad[k] = acc[k] != acc[k];
      }
      for (i = K; i + K <= n; i += K)
        for (int k = 0; k < K; ++k) {
          A v = map(p[i + k]);
          acc[k] = select(Max ? v > acc[k] : v < acc[k], v, acc[k]);
          bad[k] |= static_cast<I>(v != v);
        }
      // Halving the lanes (a tree the compiler keeps in vector registers): a scalar
      // pass over all K of them cost ~100 ns per call, which dominated short rows
      // (softmax over 32 values).
      for (int w = K / 2; w > 0; w /= 2)
        for (int k = 0; k < w; ++k) {
          acc[k] = select(Max ? acc[k + w] > acc[k] : acc[k + w] < acc[k], acc[k + w], acc[k]);
          bad[k] |= bad[k + w];
        }
      init = select(Max ? acc[0] > init : acc[0] < init, acc[0], init);
      nan |= bad[0];
    }
    for (; i < n; ++i) {
      A v = map(p[i]);
      init = select(Max ? v > init : v < init, v, init);
      nan |= static_cast<I>(v != v);
    }
    return nan ? std::numeric_limits<A>::quiet_NaN() : init;
  }
}

template <bool Max, typename A, typename T, typename Map>
EMBER_VECTOR_CLONES A minmax_lanes(const T* p, int64_t n, A init, Map map) {
  return minmax_lanes_impl<Max>(p, n, init, map);
}

// exp(x) for float without branches: the one vectorizable exp of lib/cpu/vec_math.h.
EMBER_ALWAYS_INLINE inline float exp_float(float x) { return vec::exp(x); }

template <typename A>
EMBER_ALWAYS_INLINE inline A exp_acc(A x) {
  if constexpr (std::is_same_v<A, float>) return exp_float(x);
  else return std::exp(x);
}

}  // namespace ember::cpu
