// Stable radix sorts of (key, int64 value) pairs with CUB, on the given stream,
// for the CUDA sort, topk and unique kernels. Keys are Note [Sort keys]
// (kernels/sort_key.h): unsigned integers whose order is the elements' order.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "ember/tensor.h"

namespace ember::cuda {

// Sorts each of `segments` consecutive segments of n / segments pairs by key,
// stably (equal keys keep their order). Inputs and outputs are distinct device
// arrays of n elements; `like` gives the device for the scratch memory. More than
// one segment needs n < 2^31 (CUB's segmented sort counts in int).
void sort_pairs(const Tensor& like, cudaStream_t stream, const uint32_t* keys_in, uint32_t* keys_out,
                const int64_t* values_in, int64_t* values_out, int64_t n, int64_t segments);
void sort_pairs(const Tensor& like, cudaStream_t stream, const uint64_t* keys_in, uint64_t* keys_out,
                const int64_t* values_in, int64_t* values_out, int64_t n, int64_t segments);

}  // namespace ember::cuda
