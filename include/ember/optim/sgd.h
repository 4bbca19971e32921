// SGD with momentum, dampening, Nesterov momentum, weight decay and maximize
// (torch.optim.SGD's update rule).
#pragma once
#include "ember/optim/optimizer.h"

namespace ember::optim {

class SGDOptions : public OptimizerCloneableOptions<SGDOptions> {
 public:
  explicit SGDOptions(double lr = 1e-3) : lr_(lr) {}
  EMBER_ARG(double, lr);
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(double, dampening) = 0;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, nesterov) = false;
  EMBER_ARG(bool, maximize) = false;

 public:
  OptimValues values() const override;
  void set_values(const OptimValues& values) override;
  void validate() const override;
};

// Only when momentum != 0: the buffer, set to the first step's gradient.
class SGDParamState : public OptimizerCloneableParamState<SGDParamState> {
  EMBER_ARG(Tensor, momentum_buffer);

 public:
  OptimValues values() const override;
  void set_values(const OptimValues& values) override;
};

class SGD : public OptimizerWith<SGDOptions, SGDParamState> {
 public:
  using OptimizerWith::OptimizerWith;
  Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace ember::optim
