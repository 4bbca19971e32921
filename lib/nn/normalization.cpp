#include "ember/nn/modules/normalization.h"

#include <algorithm>

#include "ember/autograd.h"
#include "ember/nn/init.h"
#include "ember/ops/factories.h"
#include "ember/ops/nn.h"
#include "dispatch/op_ids/reduce.h"

namespace ember::nn {

namespace {

// Affine parameters: weight ones, bias zeros (undefined when !affine).
void register_affine(Module& m, Tensor& weight, Tensor& bias, const IntList& shape, bool affine) {
  weight = m.register_parameter("weight", affine ? ones(shape) : Tensor(), affine);
  bias = m.register_parameter("bias", affine ? zeros(shape) : Tensor(), affine);
}

void reset_affine(Tensor& weight, Tensor& bias) {
  if (weight.defined()) init::ones_(weight);
  if (bias.defined()) init::zeros_(bias);
}

}  // namespace

BatchNormImplBase::BatchNormImplBase(const BatchNormOptions& options_, const char* kind,
                                     std::vector<int64_t> input_dims)
    : options(options_), kind_(kind), input_dims_(std::move(input_dims)) {
  int64_t n = options.num_features();
  register_affine(*this, weight, bias, {n}, options.affine());
  bool track = options.track_running_stats();
  running_mean = register_buffer("running_mean", track ? zeros({n}) : Tensor());
  running_var = register_buffer("running_var", track ? ones({n}) : Tensor());
  num_batches_tracked = register_buffer("num_batches_tracked", track ? zeros({}, kInt64) : Tensor());
}

void BatchNormImplBase::reset_running_stats() {
  if (!options.track_running_stats()) return;
  NoGradGuard no_grad;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

void BatchNormImplBase::reset_parameters() {
  reset_running_stats();
  reset_affine(weight, bias);
}

void BatchNormImplBase::pretty_print(std::ostream& stream) const {
  stream << kind_ << "(" << options.num_features() << ", eps=" << options.eps() << ", momentum=";
  if (options.momentum()) stream << *options.momentum();
  else stream << "None";
  stream << ", affine=" << std::boolalpha << options.affine()
         << ", track_running_stats=" << options.track_running_stats() << ")";
}

Tensor BatchNormImplBase::forward(const Tensor& input) {
  EMBER_CHECK_VALUE(std::find(input_dims_.begin(), input_dims_.end(), input.dim()) != input_dims_.end(), kind_,
                    ": expected ", input_dims_.size() == 2 ? "2D or 3D" : "4D", " input (got ", input.dim(),
                    "D input)");
  double factor = options.momentum().value_or(0.0);
  if (is_training() && options.track_running_stats()) {
    NoGradGuard no_grad;
    num_batches_tracked.add_(1);
    // momentum None: a cumulative moving average.
    if (!options.momentum()) factor = 1.0 / num_batches_tracked.item<double>();
  }
  // Batch statistics in training, and in eval when there are no running stats.
  bool use_batch_stats = is_training() || !running_mean.defined();
  bool pass_running = !is_training() || options.track_running_stats();
  return batch_norm(input, pass_running ? running_mean : Tensor(), pass_running ? running_var : Tensor(),
                    weight, bias, use_batch_stats, factor, options.eps());
}

LayerNormImpl::LayerNormImpl(const LayerNormOptions& options_) : options(options_) {
  register_affine(*this, weight, bias, options.normalized_shape(), options.elementwise_affine());
}

void LayerNormImpl::reset_parameters() { reset_affine(weight, bias); }

void LayerNormImpl::pretty_print(std::ostream& stream) const {
  stream << "LayerNorm(" << shape_str(DimVector(options.normalized_shape().begin(), options.normalized_shape().end()))
         << ", eps=" << options.eps() << ", elementwise_affine=" << std::boolalpha << options.elementwise_affine()
         << ")";
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return layer_norm(input, options.normalized_shape(), weight, bias, options.eps());
}

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options_) : options(options_) {
  EMBER_CHECK_VALUE(options.num_groups() > 0 && options.num_channels() % options.num_groups() == 0,
                    "GroupNorm: num_channels must be divisible by num_groups, got ", options.num_channels(),
                    " and ", options.num_groups());
  register_affine(*this, weight, bias, {options.num_channels()}, options.affine());
}

void GroupNormImpl::reset_parameters() { reset_affine(weight, bias); }

void GroupNormImpl::pretty_print(std::ostream& stream) const {
  stream << "GroupNorm(" << options.num_groups() << ", " << options.num_channels() << ", eps=" << options.eps()
         << ", affine=" << std::boolalpha << options.affine() << ")";
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  return group_norm(input, options.num_groups(), weight, bias, options.eps());
}

}  // namespace ember::nn
