// The reduction of per-element losses on CUDA: a 0-dim tensor of their mean
// (reduction 1) or sum (2), added in double as the CPU's reduce_losses
// (cpu/nn_common.h), by the reduce group's deterministic kernel.
#pragma once
#include <limits>

#include "cuda/reduce/reduce_ops.cuh"
#include "ember/ops/nn.h"

namespace ember::cuda::loss {

using reduce::ptr;

constexpr int64_t kNone = static_cast<int64_t>(Reduction::None);
constexpr int64_t kMean = static_cast<int64_t>(Reduction::Mean);

// A 0-dim CPU tensor of 1 of like's dtype: an absent weight, which gpu_kernel
// carries by value (loops.cuh).
inline Tensor ones_scalar(const Tensor& like) { return full({}, 1, TensorOptions(like.dtype())); }

// losses: a contiguous floating tensor on the device. 0 / 0 (empty mean): NaN.
inline Tensor reduce_losses(const Tensor& losses, int64_t reduction) {
  Tensor out = empty(DimVector{}, TensorOptions(losses.dtype()).device(losses.device()));
  const int64_t n = losses.numel();
  const double scale = reduction != kMean ? 1.0 : n == 0 ? std::numeric_limits<double>::quiet_NaN() : 1.0 / static_cast<double>(n);
  const reduce::ReduceShape s{1, n, 1};
  EMBER_DISPATCH_FLOATING(losses.dtype(), "reduce_losses", [&] {
    reduce::run_reduce(losses, s, reduce::SumOps<scalar_t, double, scalar_t>{reduce::ptr<scalar_t>(out), scale, 0, 0});
  });
  return out;
}

}  // namespace ember::cuda::loss
