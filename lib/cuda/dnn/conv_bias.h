// y[n, c, ...] += bias[c] for the convolutions' outputs (conv_bias.cu).
#pragma once
#include <cuda_runtime.h>

#include "ember/tensor.h"

namespace ember::cuda::dnn {

// y: contiguous [N, C, *] (any floating dtype); bias: contiguous [C] of y's dtype.
void add_channel_bias(const Tensor& y, const Tensor& bias, cudaStream_t stream);

}  // namespace ember::cuda::dnn
