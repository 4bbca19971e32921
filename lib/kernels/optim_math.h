// Element helpers of the fused optimizer updates, shared by the CPU kernels
// (lib/cpu/optim.cpp) and the CUDA kernels (lib/cuda/optim/), so that both
// compute the same expressions in the same order.
#pragma once
#include "ember/half.h"  // EMBER_HOST_DEVICE

namespace ember {

// torch.maximum: NaN wins.
template <typename T>
EMBER_HOST_DEVICE inline T max_propagate_nan(T a, T b) {
  return (a > b || a != a) ? a : b;
}

// The gradient as the update rule sees it: times sign (-1 to maximize, an
// exact negation), plus the L2 penalty weight_decay * param when there is one
// (skipped at 0 rather than multiplied by it, so an inf param stays out).
template <bool kDecay, typename T>
EMBER_HOST_DEVICE inline T effective_grad(T g, T p, T sign, T weight_decay) {
  g = sign * g;
  if constexpr (kDecay) g = g + weight_decay * p;
  return g;
}

}  // namespace ember
