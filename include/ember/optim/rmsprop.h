// RMSprop (torch.optim.RMSprop's update rule): alpha, eps, weight decay,
// momentum, centered, maximize.
#pragma once
#include "ember/optim/optimizer.h"

namespace ember::optim {

class RMSpropOptions : public OptimizerCloneableOptions<RMSpropOptions> {
 public:
  explicit RMSpropOptions(double lr = 1e-2) : lr_(lr) {}
  EMBER_ARG(double, lr);
  EMBER_ARG(double, alpha) = 0.99;
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(bool, centered) = false;
  EMBER_ARG(bool, maximize) = false;

 public:
  OptimValues values() const override;
  void set_values(const OptimValues& values) override;
  void validate() const override;
};

class RMSpropParamState : public OptimizerCloneableParamState<RMSpropParamState> {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, square_avg);
  EMBER_ARG(Tensor, momentum_buffer);  // momentum > 0 only
  EMBER_ARG(Tensor, grad_avg);         // centered only

 public:
  OptimValues values() const override;  // "step" as a 0-dim float32 tensor
  void set_values(const OptimValues& values) override;
};

class RMSprop : public OptimizerWith<RMSpropOptions, RMSpropParamState> {
 public:
  using OptimizerWith::OptimizerWith;
  Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace ember::optim
