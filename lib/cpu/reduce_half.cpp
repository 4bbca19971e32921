// pairwise_sum_half (reduce_ops.h): float16 sums at the speed of float32 ones.
#include <algorithm>

#include "cpu/half_convert.h"
#include "cpu/reduce_ops.h"

namespace ember::cpu {

float pairwise_sum_half(const Half* p, int64_t n) {
  // The structure of pairwise_sum (reduce_math.h) with each block widened into a buffer:
  // lanes_reduce over the floats is what it computes over the mapped float16 values.
  alignas(64) float buf[kPairwiseBlock];
  auto block_sum = [&](int64_t b) {
    const int64_t m = std::min(kPairwiseBlock, n - b);
    half_to_float(buf, p + b, m);
    return pairwise_sum_wide<float>(buf, m, CastTo<float>{});
  };
  if (n <= kPairwiseBlock) return block_sum(0);
  float levels[64];
  uint64_t occupied = 0;
  for (int64_t b = 0; b < n; b += kPairwiseBlock) {
    float x = block_sum(b);
    int k = 0;
    for (; occupied >> k & 1; ++k) x = levels[k] + x;
    occupied = (occupied & ~((uint64_t(1) << k) - 1)) | (uint64_t(1) << k);
    levels[k] = x;
  }
  float total = 0;
  for (int k = 63; k >= 0; --k)
    if (occupied >> k & 1) total += levels[k];
  return total;
}

}  // namespace ember::cpu
