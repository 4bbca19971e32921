// lerp(start, end, w) as PyTorch computes it: from whichever end is nearer,
// for accuracy at both ends. Used by the lerp kernel and by the optimizers'
// running averages (torch.optim's exp_avg.lerp_(grad, 1 - beta1)).
#pragma once
#include <cmath>

namespace ember::cpu {

template <typename O>
inline O lerp_value(O start, O end, O w) {
  O diff = end - start;
  return std::abs(w) < O(0.5) ? start + w * diff : end - diff * (O(1) - w);
}

}  // namespace ember::cpu
