// The dropout of fused attention (scaled_dot_product_flash_attention): which
// attention weights a call keeps. The forward kernel, its backward kernel and the
// composite gradient used under create_graph (lib/autograd/derivatives/attention.cpp)
// all ask this one function, so the three see the same mask without storing it.
//
// Weight (bh, i, j) of the [BH, L, S] attention matrix reads word j % 4 of
// philox(seed, offset + (bh * L + i) * ceil(S / 4) + j / 4): each row starts a new
// group of four, so a block of keys that starts at a multiple of 4 needs one
// philox call per four weights. It keeps when the word >= p * 2^32 (dropout's rule).
#pragma once
#include <cstdint>

#include "kernels/philox.h"

namespace ember::attention_dropout {

// Counters one call reserves from the generator.
inline uint64_t counters(int64_t BH, int64_t L, int64_t S) {
  return static_cast<uint64_t>(BH) * static_cast<uint64_t>(L) * static_cast<uint64_t>((S + 3) / 4);
}

// The counter of the group holding weights (bh, i, 4 * (j / 4)) .. (bh, i, 4 * (j / 4) + 3).
inline uint64_t counter(uint64_t offset, int64_t bh, int64_t i, int64_t j, int64_t L, int64_t S) {
  return offset + static_cast<uint64_t>((bh * L + i) * ((S + 3) / 4) + j / 4);
}

// Writes keep (scale or 0) for weights j0 .. j0 + n - 1 of row (bh, i); j0 % 4 == 0.
template <typename A>
inline void row_keep(A* out, int64_t n, uint64_t seed, uint64_t offset, int64_t bh, int64_t i,
                     int64_t j0, int64_t L, int64_t S, uint64_t threshold, A scale) {
  for (int64_t c = 0; c < n; c += 4) {
    const PhiloxWords w = philox4x32(seed, 0, counter(offset, bh, i, j0 + c, L, S));
    const int64_t end = n - c < 4 ? n - c : 4;
    for (int64_t t = 0; t < end; ++t) out[c + t] = w[static_cast<int>(t)] >= threshold ? scale : A(0);
  }
}

}  // namespace ember::attention_dropout
