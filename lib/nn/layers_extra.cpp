#include "ember/nn/modules/layers_extra.h"

#include "ember/error.h"
#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/ops/factories.h"

namespace ember::nn {

namespace F = functional;

void CosineSimilarityImpl::pretty_print(std::ostream& stream) const {
  stream << "CosineSimilarity(dim=" << options.dim() << ", eps=" << options.eps() << ")";
}

Tensor CosineSimilarityImpl::forward(const Tensor& x1, const Tensor& x2) {
  return F::cosine_similarity(x1, x2, options.dim(), options.eps());
}

void PairwiseDistanceImpl::pretty_print(std::ostream& stream) const {
  stream << "PairwiseDistance(p=" << options.p() << ", eps=" << options.eps() << ", keepdim=" << std::boolalpha
         << options.keepdim() << ")";
}

Tensor PairwiseDistanceImpl::forward(const Tensor& x1, const Tensor& x2) {
  return F::pairwise_distance(x1, x2, options.p(), options.eps(), options.keepdim());
}

void PixelShuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "PixelShuffle(upscale_factor=" << options.upscale_factor() << ")";
}

Tensor PixelShuffleImpl::forward(const Tensor& input) { return F::pixel_shuffle(input, options.upscale_factor()); }

void PixelUnshuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "PixelUnshuffle(downscale_factor=" << options.downscale_factor() << ")";
}

Tensor PixelUnshuffleImpl::forward(const Tensor& input) {
  return F::pixel_unshuffle(input, options.downscale_factor());
}

ChannelDropoutImplBase::ChannelDropoutImplBase(const DropoutOptions& options_, const char* kind, int spatial_dims)
    : options(options_), kind_(kind), spatial_dims_(spatial_dims) {
  EMBER_CHECK_VALUE(options.p() >= 0 && options.p() <= 1,
                    "dropout probability has to be between 0 and 1, but got ", options.p());
}

void ChannelDropoutImplBase::pretty_print(std::ostream& stream) const {
  stream << kind_ << "(p=" << options.p() << ", inplace=" << std::boolalpha << options.inplace() << ")";
}

Tensor ChannelDropoutImplBase::forward(const Tensor& input) {
  auto fn = spatial_dims_ == 1 ? &F::dropout1d : spatial_dims_ == 2 ? &F::dropout2d : &F::dropout3d;
  return fn(input, options.p(), is_training(), options.inplace());
}

RMSNormImpl::RMSNormImpl(const RMSNormOptions& options_) : options(options_) {
  if (options.elementwise_affine()) weight = register_parameter("weight", empty(options.normalized_shape()));
  reset_parameters();
}

void RMSNormImpl::reset_parameters() {
  if (weight.defined()) init::ones_(weight);
}

void RMSNormImpl::pretty_print(std::ostream& stream) const {
  const IntList& s = options.normalized_shape();
  stream << "RMSNorm(" << shape_str(DimVector(s.begin(), s.end())) << ", eps=";
  if (options.eps()) stream << *options.eps();
  else stream << "None";
  stream << ", elementwise_affine=" << std::boolalpha << options.elementwise_affine() << ")";
}

Tensor RMSNormImpl::forward(const Tensor& input) {
  return F::rms_norm(input, options.normalized_shape(), weight, options.eps());
}

}  // namespace ember::nn
