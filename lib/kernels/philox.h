// Philox 4x32-10 and the samplers of the random ops, shared by the CPU and CUDA
// kernels (EMBER_HOST_DEVICE), so that a seed gives the same numbers on both:
// element i of a random op draws philox4x32(seed, 0, offset + i) and turns its
// four words into a value with the sampler below (lib/cpu/random.cpp,
// lib/cuda/random/). ember::philox (ember/generator.h) is this function.
#pragma once
#include <math.h>

#include <cstdint>

#include "kernels/element_types.h"
#include "kernels/exact_rounding.h"
#include "ember/half.h"  // EMBER_HOST_DEVICE

namespace ember {

struct PhiloxWords {
  uint32_t w[4];
  EMBER_HOST_DEVICE uint32_t operator[](int k) const { return w[k]; }
};

// Four pseudo-random 32-bit words for a (key, counter) pair.
EMBER_HOST_DEVICE inline PhiloxWords philox4x32(uint64_t key, uint64_t counter_hi, uint64_t counter_lo) {
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  uint32_t c0 = static_cast<uint32_t>(counter_lo), c1 = static_cast<uint32_t>(counter_lo >> 32);
  uint32_t c2 = static_cast<uint32_t>(counter_hi), c3 = static_cast<uint32_t>(counter_hi >> 32);
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = uint64_t(0xD2511F53u) * c0, p1 = uint64_t(0xCD9E8D57u) * c2;
    uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c0 = n0;
    c1 = static_cast<uint32_t>(p1);
    c2 = n2;
    c3 = static_cast<uint32_t>(p0);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return PhiloxWords{{c0, c1, c2, c3}};
}

namespace philox_sample {

// 53 random bits as a double in [0, 1).
EMBER_HOST_DEVICE inline double unit_double(uint32_t hi, uint32_t lo) {
  return double((uint64_t(hi) << 21) ^ uint64_t(lo >> 11)) * (1.0 / 9007199254740992.0);
}

// uniform_: lo + (hi - lo) * u in double, rounded to T. Float rounding may
// reach hi; the interval stays half-open as documented.
template <typename T>
EMBER_HOST_DEVICE inline T uniform(const PhiloxWords& w, double lo, double hi) {
  T r = convert<T>(add_rn(lo, mul_rn(hi - lo, unit_double(w[0], w[1]))));
  if (static_cast<double>(r) >= hi && hi > lo) r = convert<T>(lo);
  return r;
}

// normal_: Box-Muller on two 53-bit uniforms (the cosine half only).
EMBER_HOST_DEVICE inline double normal(const PhiloxWords& w, double mean, double std) {
  constexpr double kTwoPi = 6.283185307179586;
  double u1 = 1.0 - unit_double(w[0], w[1]);  // (0, 1]: log is finite
  double u2 = unit_double(w[2], w[3]);
  double z = sqrt(-2.0 * log(u1)) * cos(kTwoPi * u2);
  return add_rn(mean, mul_rn(std, z));
}

// random_: an integer in [lo, lo + span) (span 0: the whole 2^64 range), in
// uint64 arithmetic so that spans up to 2^64 work.
EMBER_HOST_DEVICE inline int64_t random_int(const PhiloxWords& w, uint64_t lo, uint64_t span) {
  uint64_t r = (uint64_t(w[0]) << 32) | w[1];
  return static_cast<int64_t>(lo + (span ? r % span : r));
}

// bernoulli_: 1 with probability p.
EMBER_HOST_DEVICE inline bool bernoulli(const PhiloxWords& w, double p) { return unit_double(w[0], w[1]) < p; }

// dropout: element k (0..3) of a group of four keeps when its word >= p * 2^32.
EMBER_HOST_DEVICE inline uint64_t dropout_threshold(double p) { return static_cast<uint64_t>(p * 4294967296.0); }

}  // namespace philox_sample
}  // namespace ember
