// Small pieces the learning-rate schedulers share (lib/optim/lr_scheduler*.cpp).
#pragma once
#include <vector>

#include "ember/error.h"
#include "ember/optim/optimizer.h"

namespace ember::optim::detail {

// lrs, each times factor.
inline std::vector<double> scaled(std::vector<double> lrs, double factor) {
  for (double& lr : lrs) lr *= factor;
  return lrs;
}

// One value per group: `values` has one for all or one per group (PyTorch's message).
std::vector<double> per_group(const char* name, const std::vector<double>& values,
                              size_t groups);

// Whether the optimizer's momentum is Adam's beta1 (true) or a `momentum` option;
// a ValueError naming `cycle_momentum` if it has neither.
bool momentum_is_beta1(const Optimizer& optimizer);
// Sets a group's momentum, or beta1 when use_beta1.
void set_momentum(OptimizerOptions& options, bool use_beta1, double momentum);

}  // namespace ember::optim::detail
