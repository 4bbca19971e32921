// lerp(start, end, w) as PyTorch computes it: from whichever end is nearer,
// for accuracy at both ends. Used by the lerp kernel and by the optimizers'
// running averages (torch.optim's exp_avg.lerp_(grad, 1 - beta1)), on the CPU
// and on CUDA (lib/cuda/optim/).
#pragma once
#include "ember/half.h"  // EMBER_HOST_DEVICE

namespace ember {

template <typename O>
EMBER_HOST_DEVICE inline O lerp_value(O start, O end, O w) {
  O diff = end - start;
  // |w| < 0.5 (false for NaN), written without std::abs so that it runs on the device.
  return (w < O(0.5) && w > O(-0.5)) ? start + w * diff : end - diff * (O(1) - w);
}

}  // namespace ember
