// Shared pieces of the normalization kernels on CUDA (norm.cu, norm_backward.cu).
//
// Statistics are per segment: segment k of x (contiguous) holds the `outer * inner`
// values at k * inner + n * outer_stride + s (n < outer, s < inner):
//   layer_norm: a row (outer 1, inner = the normalized size);
//   group_norm: a group of one sample (outer 1, inner = C / G * spatial);
//   batch_norm: a channel (outer N, inner = spatial, outer_stride = C * spatial).
// One block reduces one segment (block_reduce: fixed order, deterministic), each
// thread summing its values in opmath, the block's partial sums added in double.
//
// Elementwise passes map element i to a statistic (i / stat_div) % stat_mod and a
// parameter (weight, bias) (i / param_div) % param_mod.
#pragma once
#include <cstdint>

#include "cuda/launch.h"  // multiprocessor_count
#include "ember/ops/factories.h"
#include "ember/tensor.h"

namespace ember::cuda::norm {

struct Segments {
  int64_t count;  // segments (blocks)
  int64_t outer, inner, outer_stride;
  EMBER_HOST_DEVICE int64_t size() const { return outer * inner; }
  // The offset of the j-th value of a segment from the segment's start (k * inner).
  EMBER_HOST_DEVICE int64_t offset(int64_t j) const {
    if (outer == 1) return j;
    const int64_t n = j / inner;
    return n * outer_stride + (j - n * inner);
  }
};

struct IndexMap {
  int64_t stat_div, stat_mod, param_div, param_mod;
  EMBER_HOST_DEVICE int64_t stat(int64_t i) const { return (i / stat_div) % stat_mod; }
  EMBER_HOST_DEVICE int64_t param(int64_t i) const { return (i / param_div) % param_mod; }
};

// Threads per block for segments of `size` values: a power of two from 32 to 512.
inline int segment_threads(int64_t size) {
  int t = 32;
  while (t < size && t < 512) t *= 2;
  return t;
}

// Parts (blockIdx.y) to split each of `count` segments of `size` values into, so
// that few long segments (batch_norm's channels) still fill the GPU: 1 where there
// are segments enough (layer_norm's rows), and never below 8 values per thread.
// Call with the segments' device current.
inline int64_t segment_parts(int64_t count, int64_t size, int threads) {
  const int64_t want = 4 * static_cast<int64_t>(multiprocessor_count());
  int64_t parts = count >= want ? 1 : (want + count - 1) / count;
  const int64_t most = (size + 8 * threads - 1) / (8 * threads);
  if (parts > most) parts = most;
  if (parts > 65535) parts = 65535;
  return parts < 1 ? 1 : parts;
}

// The statistics' dtype: float64 for float64, float32 otherwise (opmath).
inline DType stat_dtype(DType t) { return t == kFloat64 ? kFloat64 : kFloat32; }

// t as a contiguous tensor of `dtype` on `device`, or (undefined t) n values `fill`.
inline Tensor param_tensor(const Tensor& t, int64_t n, double fill, DType dtype, Device device) {
  if (!t.defined()) return full(IntList{n}, fill, TensorOptions(dtype).device(device));
  return t.to(dtype).contiguous();
}

}  // namespace ember::cuda::norm
