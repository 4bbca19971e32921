#include "ember/nn/modules/loss_extra.h"

#include "ember/error.h"
#include "ember/nn/functional.h"

namespace ember::nn {

namespace F = functional;

KLDivLossImpl::KLDivLossImpl(const KLDivLossOptions& options_)
    : LossImplBase("KLDivLoss", options_.reduction() == "batchmean" ? "mean" : options_.reduction()),
      options(options_) {}

Tensor KLDivLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::kl_div(input, target, options.reduction(), options.log_target());
}

Tensor HuberLossImpl::forward(const Tensor& input, const Tensor& target) {
  return huber_loss(input, target, options.reduction(), options.delta());
}

Tensor SoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::soft_margin_loss(input, target, options.reduction());
}

Tensor CosineEmbeddingLossImpl::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
  return F::cosine_embedding_loss(input1, input2, target, options.margin(), options.reduction());
}

Tensor MarginRankingLossImpl::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
  return F::margin_ranking_loss(input1, input2, target, options.margin(), options.reduction());
}

Tensor HingeEmbeddingLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::hinge_embedding_loss(input, target, options.margin(), options.reduction());
}

Tensor PoissonNLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::poisson_nll_loss(input, target, options.log_input(), options.full(), options.eps(), options.reduction());
}

Tensor GaussianNLLLossImpl::forward(const Tensor& input, const Tensor& target, const Tensor& var) {
  return F::gaussian_nll_loss(input, target, var, options.full(), options.eps(), options.reduction());
}

TripletMarginLossImpl::TripletMarginLossImpl(const TripletMarginLossOptions& options_)
    : LossImplBase("TripletMarginLoss", options_.reduction()), options(options_) {
  EMBER_CHECK_VALUE(options.margin() > 0, "TripletMarginLoss: expected margin to be greater than 0, got ",
                    options.margin(), " instead");
}

Tensor TripletMarginLossImpl::forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
  return F::triplet_margin_loss(anchor, positive, negative, options.margin(), options.p(), options.eps(),
                                options.swap(), options.reduction());
}

MultiLabelSoftMarginLossImpl::MultiLabelSoftMarginLossImpl(const MultiLabelSoftMarginLossOptions& options_)
    : LossImplBase("MultiLabelSoftMarginLoss", options_.reduction()), options(options_) {
  weight = register_buffer("weight", options.weight());
}

Tensor MultiLabelSoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::multilabel_soft_margin_loss(input, target, weight, options.reduction());
}

MultiMarginLossImpl::MultiMarginLossImpl(const MultiMarginLossOptions& options_)
    : LossImplBase("MultiMarginLoss", options_.reduction()), options(options_) {
  EMBER_CHECK_VALUE(options.p() == 1 || options.p() == 2, "only p == 1 and p == 2 supported");
  if (options.weight().defined())
    EMBER_CHECK_VALUE(options.weight().dim() == 1, "MultiMarginLoss: expected weight to be None or 1D tensor, got ",
                      options.weight().dim(), "D instead");
  weight = register_buffer("weight", options.weight());
}

Tensor MultiMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::multi_margin_loss(input, target, options.p(), options.margin(), weight, options.reduction());
}

}  // namespace ember::nn
