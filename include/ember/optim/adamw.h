// AdamW (torch.optim.AdamW): Adam with decoupled weight decay, which scales
// the parameter by 1 - lr * weight_decay instead of adding to the gradient.
#pragma once
#include "ember/optim/adam.h"

namespace ember::optim {

class AdamWOptions : public AdamOptionsBase<AdamWOptions> {
 public:
  explicit AdamWOptions(double lr = 1e-3) : AdamOptionsBase(lr, 1e-2) {}
};

using AdamWParamState = AdamParamState;

class AdamW : public OptimizerWith<AdamWOptions, AdamParamState> {
 public:
  using OptimizerWith::OptimizerWith;
  Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace ember::optim

namespace ember::optim {
extern template class AdamOptionsBase<AdamWOptions>;
}  // namespace ember::optim
