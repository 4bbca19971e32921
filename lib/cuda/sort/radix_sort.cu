// sort_pairs (radix_sort.h) over CUB's radix sorts: one segment through
// cub::DeviceRadixSort (64-bit counts), several through
// cub::DeviceSegmentedRadixSort with the segment bounds computed on the device.
// Both are stable. Scratch memory comes from the caching allocator.
#include <cub/cub.cuh>

#include <limits>

#include "cuda/index/positions.cuh"
#include "cuda/sort/radix_sort.h"

namespace ember::cuda {
namespace {

// bounds[s] = s * len for s <= segments.
__global__ void segment_bounds(int* bounds, int64_t segments, int64_t len) {
  for (int64_t s = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; s <= segments;
       s += int64_t(blockDim.x) * gridDim.x)
    bounds[s] = static_cast<int>(s * len);
}

template <typename K>
void sort_pairs_impl(const Tensor& like, cudaStream_t stream, const K* keys_in, K* keys_out,
                     const int64_t* values_in, int64_t* values_out, int64_t n, int64_t segments) {
  if (n == 0) return;
  size_t bytes = 0;
  if (segments <= 1) {
    EMBER_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, keys_out, values_in,
                                                     values_out, n, 0, int(sizeof(K) * 8), stream));
    Tensor temp = scratch(like, bytes);
    EMBER_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data_ptr(), bytes, keys_in, keys_out,
                                                     values_in, values_out, n, 0, int(sizeof(K) * 8),
                                                     stream));
    return;
  }
  EMBER_CHECK_AS(NotImplementedError, n <= std::numeric_limits<int>::max(),
                 "sort on CUDA: sorting ", n, " elements in more than one slice is not supported "
                 "(at most 2^31 - 1)");
  Tensor bounds_t = empty(IntList{segments + 1}, TensorOptions(kInt32).device(like.device()));
  int* bounds = bounds_t.data_ptr<int32_t>();
  segment_bounds<<<blocks_for(segments + 1), kBlockThreads, 0, stream>>>(bounds, segments, n / segments);
  EMBER_CUDA_CHECK_LAUNCH();
  EMBER_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortPairs(
      nullptr, bytes, keys_in, keys_out, values_in, values_out, int(n), int(segments), bounds,
      bounds + 1, 0, int(sizeof(K) * 8), stream));
  Tensor temp = scratch(like, bytes);
  EMBER_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortPairs(
      temp.data_ptr(), bytes, keys_in, keys_out, values_in, values_out, int(n), int(segments),
      bounds, bounds + 1, 0, int(sizeof(K) * 8), stream));
}

}  // namespace

void sort_pairs(const Tensor& like, cudaStream_t stream, const uint32_t* keys_in, uint32_t* keys_out,
                const int64_t* values_in, int64_t* values_out, int64_t n, int64_t segments) {
  sort_pairs_impl(like, stream, keys_in, keys_out, values_in, values_out, n, segments);
}

void sort_pairs(const Tensor& like, cudaStream_t stream, const uint64_t* keys_in, uint64_t* keys_out,
                const int64_t* values_in, int64_t* values_out, int64_t n, int64_t segments) {
  sort_pairs_impl(like, stream, keys_in, keys_out, values_in, values_out, n, segments);
}

}  // namespace ember::cuda
