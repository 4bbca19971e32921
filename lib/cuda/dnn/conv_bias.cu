// The bias of conv2d and conv_transpose2d, added after cuDNN's convolution
// (conv_bias.h). One thread per element, grid-stride, int64 indices.
#include "kernels/dtype_dispatch.h"
#include "cuda/dnn/conv_bias.h"
#include "cuda/launch.h"

namespace ember::cuda::dnn {

namespace {

template <typename T>
__global__ void add_channel_bias_kernel(T* y, const T* bias, int64_t numel, int64_t channels, int64_t plane) {
  using Acc = opmath_t<T>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < numel; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = (i / plane) % channels;
    y[i] = convert<T>(convert<Acc>(y[i]) + convert<Acc>(bias[c]));
  }
}

}  // namespace

void add_channel_bias(const Tensor& y, const Tensor& bias, cudaStream_t stream) {
  const int64_t numel = y.numel(), channels = y.size(1);
  if (numel == 0 || channels == 0) return;
  const int64_t plane = numel / (y.size(0) * channels);
  if (plane == 0) return;
  EMBER_DISPATCH_FLOATING(y.dtype(), "convolution bias", [&] {
    add_channel_bias_kernel<scalar_t><<<blocks_for(numel), kBlockThreads, 0, stream>>>(
        static_cast<scalar_t*>(y.data_ptr()), static_cast<const scalar_t*>(bias.data_ptr()), numel, channels, plane);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace ember::cuda::dnn
