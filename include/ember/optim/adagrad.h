// Adagrad (torch.optim.Adagrad's update rule): lr_decay, weight decay,
// initial_accumulator_value, eps, maximize.
#pragma once
#include "ember/optim/optimizer.h"

namespace ember::optim {

class AdagradOptions : public OptimizerCloneableOptions<AdagradOptions> {
 public:
  explicit AdagradOptions(double lr = 1e-2) : lr_(lr) {}
  EMBER_ARG(double, lr);
  EMBER_ARG(double, lr_decay) = 0;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, initial_accumulator_value) = 0;
  EMBER_ARG(double, eps) = 1e-10;
  EMBER_ARG(bool, maximize) = false;

 public:
  OptimValues values() const override;
  void set_values(const OptimValues& values) override;
  void validate() const override;
};

class AdagradParamState : public OptimizerCloneableParamState<AdagradParamState> {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, sum);

 public:
  OptimValues values() const override;  // "step" as a 0-dim float32 tensor
  void set_values(const OptimValues& values) override;
};

// As torch.optim.Adagrad, every parameter's state (step 0, sum filled with
// initial_accumulator_value) exists from construction on.
class Adagrad : public OptimizerWith<AdagradOptions, AdagradParamState> {
 public:
  Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults = AdagradOptions());
  Adagrad(std::vector<Tensor> params, AdagradOptions defaults = AdagradOptions());
  Tensor step(LossClosure closure = nullptr) override;

 private:
  // The state of p, with its sum made on first use.
  AdagradParamState& initialized_state(const AdagradOptions& options, const Tensor& p);
};

}  // namespace ember::optim
