#include "ember/nn/modules/loss.h"

#include "ember/ops/nn.h"

namespace ember::nn {

LossImplBase::LossImplBase(const char* kind, const std::string& reduction) : kind_(kind) {
  reduction_from_string(reduction);  // ValueError for an unknown reduction, at construction
}

void LossImplBase::pretty_print(std::ostream& stream) const { stream << kind_ << "()"; }

Tensor MSELossImpl::forward(const Tensor& input, const Tensor& target) {
  return mse_loss(input, target, options.reduction());
}

Tensor L1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return l1_loss(input, target, options.reduction());
}

Tensor SmoothL1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return smooth_l1_loss(input, target, options.reduction(), options.beta());
}

CrossEntropyLossImpl::CrossEntropyLossImpl(const CrossEntropyLossOptions& options_)
    : LossImplBase("CrossEntropyLoss", options_.reduction()), options(options_) {
  weight = register_buffer("weight", options.weight());
}

Tensor CrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) {
  return cross_entropy(input, target, weight, options.ignore_index(), options.reduction(),
                       options.label_smoothing());
}

NLLLossImpl::NLLLossImpl(const NLLLossOptions& options_)
    : LossImplBase("NLLLoss", options_.reduction()), options(options_) {
  weight = register_buffer("weight", options.weight());
}

Tensor NLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  return nll_loss(input, target, weight, options.ignore_index(), options.reduction());
}

BCELossImpl::BCELossImpl(const BCELossOptions& options_)
    : LossImplBase("BCELoss", options_.reduction()), options(options_) {
  weight = register_buffer("weight", options.weight());
}

Tensor BCELossImpl::forward(const Tensor& input, const Tensor& target) {
  return binary_cross_entropy(input, target, weight, options.reduction());
}

BCEWithLogitsLossImpl::BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options_)
    : LossImplBase("BCEWithLogitsLoss", options_.reduction()), options(options_) {
  weight = register_buffer("weight", options.weight());
  pos_weight = register_buffer("pos_weight", options.pos_weight());
}

Tensor BCEWithLogitsLossImpl::forward(const Tensor& input, const Tensor& target) {
  return binary_cross_entropy_with_logits(input, target, weight, options.reduction(), pos_weight);
}

}  // namespace ember::nn
