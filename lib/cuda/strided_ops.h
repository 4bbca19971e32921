// Tensor-level entry points of the strided copy and fill kernels.
#pragma once
#include <cstdint>

#include "ember/cuda.h"
#include "ember/tensor.h"

namespace ember::cuda {

// Queues dst = src on `stream`: same device, any dtypes (converted as on the CPU),
// any strides; src is broadcast to dst's shape. dst must not overlap src.
void strided_copy(const Tensor& dst, const Tensor& src, const Stream& stream);
// Queues every element of dst = the value whose bytes are the low bytes of value_bits.
void strided_fill(const Tensor& dst, uint64_t value_bits, const Stream& stream);

}  // namespace ember::cuda
