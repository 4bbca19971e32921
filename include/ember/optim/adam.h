// Adam (torch.optim.Adam's update rule): L2 weight decay added to the
// gradient, amsgrad, maximize, bias correction with the step count.
#pragma once
#include <tuple>

#include "ember/optim/optimizer.h"

namespace ember::optim {

// The options of Adam and AdamW; they differ only in weight_decay's default.
template <typename Derived>
class AdamOptionsBase : public OptimizerCloneableOptions<Derived> {
 public:
  using betas_t = std::tuple<double, double>;
  AdamOptionsBase(double lr, double weight_decay) : lr_(lr), weight_decay_(weight_decay) {}
  EMBER_ARG(double, lr);
  EMBER_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay);
  EMBER_ARG(bool, amsgrad) = false;
  EMBER_ARG(bool, maximize) = false;

 public:
  // "betas" is the list {beta1, beta2}; "decoupled_weight_decay" says which of
  // Adam and AdamW the options belong to (read only).
  OptimValues values() const override;
  void set_values(const OptimValues& values) override;
  void validate() const override;
};

class AdamOptions : public AdamOptionsBase<AdamOptions> {
 public:
  explicit AdamOptions(double lr = 1e-3) : AdamOptionsBase(lr, 0) {}
};

class AdamParamState : public OptimizerCloneableParamState<AdamParamState> {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, exp_avg);
  EMBER_ARG(Tensor, exp_avg_sq);
  EMBER_ARG(Tensor, max_exp_avg_sq);  // amsgrad only

 public:
  OptimValues values() const override;  // "step" as a 0-dim float32 tensor
  void set_values(const OptimValues& values) override;
};

class Adam : public OptimizerWith<AdamOptions, AdamParamState> {
 public:
  using OptimizerWith::OptimizerWith;
  Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace ember::optim

namespace ember::optim {
extern template class AdamOptionsBase<AdamOptions>;
}  // namespace ember::optim
