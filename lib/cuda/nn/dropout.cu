// dropout and its backward on CUDA, with the CPU kernels' rules
// (lib/cpu/dropout.cpp, dropout_backward.cpp): group g of 4 consecutive elements
// (row-major) uses the four words of philox4x32(seed, 0, offset + g) from the
// default generator, an element is kept when its word >= p * 2^32 and scaled by
// 1 / (1 - p), and a dropped element is x * 0 (NaN stays NaN). So the same seed
// gives the same mask and output as the CPU.
#include <algorithm>

#include "kernels/philox.h"
#include "kernels/dtype_dispatch.h"
#include "cuda/launch.h"
#include "cuda/loops.cuh"
#include "dispatch/args/nn.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/generator.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"

namespace ember::cuda {
namespace {

// One thread per group of four elements (grid-stride, int64 indices).
template <typename T>
__global__ void dropout_kernel_impl(const T* x, T* y, bool* mask, int64_t n, uint64_t key, uint64_t offset,
                                    uint64_t threshold, opmath_t<T> scale) {
  using acc_t = opmath_t<T>;
  const int64_t groups = (n + 3) / 4, step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t g = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; g < groups; g += step) {
    const PhiloxWords w = philox4x32(key, 0, offset + static_cast<uint64_t>(g));
    const int64_t end = n - g * 4 < 4 ? n - g * 4 : 4;
    for (int64_t k = 0; k < end; ++k) {
      const int64_t i = g * 4 + k;
      const bool keep = w[static_cast<int>(k)] >= threshold;
      mask[i] = keep;
      y[i] = convert<T>(static_cast<acc_t>(x[i]) * (keep ? scale : acc_t(0)));
    }
  }
}

void dropout_kernel(OpCall& c) {
  const Tensor& input = c.in(0);
  const DropoutArgs a = DropoutArgs::from(c);
  const bool preset = c.has_preset_output();
  const TensorOptions on_device = TensorOptions(input.dtype()).device(input.device());
  Tensor out = preset ? c.outputs[0] : empty(input.sizes(), on_device);
  Tensor x = input.contiguous();
  Tensor dense = out.is_contiguous() ? out : empty(input.sizes(), on_device);
  Tensor mask = empty(input.sizes(), TensorOptions(kBool).device(input.device()));
  const int64_t n = input.numel(), groups = (n + 3) / 4;
  const PhiloxState stream = default_generator(input.device()).reserve(static_cast<uint64_t>(groups));
  const uint64_t threshold = philox_sample::dropout_threshold(a.p);
  const double scale = a.p < 1.0 ? 1.0 / (1.0 - a.p) : 0.0;
  if (n > 0) {
    EMBER_DISPATCH_FLOATING(input.dtype(), "dropout", [&] {
      using acc_t = opmath_t<scalar_t>;
      LaunchContext ctx(input);
      dropout_kernel_impl<scalar_t><<<blocks_for(groups), kBlockThreads, 0, ctx.stream>>>(
          static_cast<const scalar_t*>(x.data_ptr()), static_cast<scalar_t*>(dense.data_ptr()),
          static_cast<bool*>(mask.data_ptr()), n, stream.seed, stream.offset, threshold, static_cast<acc_t>(scale));
      EMBER_CUDA_CHECK_LAUNCH();
    });
  }
  if (!dense.is_same(out)) copy_(out, dense);
  if (!preset) c.outputs.push_back(out);
  c.outputs.push_back(mask);
}

// grad * (mask * scale) in opmath; a dropped element gives grad * 0.
void dropout_backward_kernel(OpCall& c) {
  const Tensor& g = c.in(0);
  const Tensor& mask = c.in(1);
  const DropoutBackwardArgs a = DropoutBackwardArgs::from(c);
  Tensor out = empty(g.sizes(), TensorOptions(g.dtype()).device(g.device()));
  EMBER_DISPATCH_FLOATING(g.dtype(), "native_dropout_backward", [&] {
    using acc_t = opmath_t<scalar_t>;
    const acc_t s = static_cast<acc_t>(a.scale);
    gpu_kernel<scalar_t, scalar_t, bool>(out, {&g, &mask}, [s] EMBER_LAMBDA(acc_t gi, bool keep) {
      return gi * (keep ? s : acc_t(0));
    });
  });
  c.outputs.push_back(out);
}

EMBER_REGISTER_KERNEL(dropout, CUDA, dropout_kernel);
EMBER_REGISTER_KERNEL(dropout_backward, CUDA, dropout_backward_kernel);

}  // namespace
}  // namespace ember::cuda
