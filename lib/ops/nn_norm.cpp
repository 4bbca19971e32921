// batch_norm, layer_norm, group_norm: argument checks (with PyTorch's messages
// and exception kinds), then one dispatched op each (kernels: lib/cpu/norm.cpp).
#include "dispatch/args/nn.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "ember/ops/nn.h"
#include "ops/nn_checks.h"

namespace ember {

using namespace nn_checks;

std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const Tensor& weight,
                                                     const Tensor& bias, const Tensor& running_mean,
                                                     const Tensor& running_var, bool training,
                                                     double momentum, double eps) {
  const char* op = "batch_norm";
  check_defined(input, op, "input");
  check_floating(input, op);
  EMBER_CHECK(input.dim() >= 2, op, ": expected an input of at least 2 dims (N, C, ...), got ",
              describe(input));
  const int64_t C = input.size(1);
  const std::pair<const Tensor*, const char*> params[] = {
      {&running_mean, "running_mean"}, {&running_var, "running_var"}, {&weight, "weight"}, {&bias, "bias"}};
  for (auto [t, name] : params) {
    if (!t->defined()) continue;
    EMBER_CHECK(t->numel() == C, op, ": ", name, " should contain ", C, " elements not ", t->numel());
    check_param_dtype(*t, input, op, name);
  }
  if (!training) {
    EMBER_CHECK(running_mean.defined(), op, ": running_mean must be defined in evaluation mode");
    EMBER_CHECK(running_var.defined(), op, ": running_var must be defined in evaluation mode");
  }
  OpCall call(opid::batch_norm, {input, running_mean, running_var, weight, bias},
              BatchNormArgs{.training = training, .momentum = momentum, .eps = eps}.attrs());
  dispatch(call);
  // Note [Versions]: the running stats were written in place.
  if (training) {
    if (running_mean.defined()) running_mean.bump_version();
    if (running_var.defined()) running_var.bump_version();
  }
  return {call.outputs[0], call.outputs[1], call.outputs[2]};
}

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum,
                  double eps) {
  if (training && input.defined() && input.dim() >= 2) {
    // F.batch_norm's own check (a ValueError in PyTorch).
    int64_t per_channel = input.size(1) == 0 ? 0 : input.numel() / input.size(1);
    EMBER_CHECK_VALUE(per_channel != 1, "batch_norm: expected more than 1 value per channel when "
                      "training, got input size ", shape_str(input.sizes()));
  }
  return std::get<0>(native_batch_norm(input, weight, bias, running_mean, running_var, training,
                                       momentum, eps));
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input,
                                                     const IntList& normalized_shape,
                                                     const Tensor& weight, const Tensor& bias,
                                                     double eps) {
  const char* op = "layer_norm";
  check_defined(input, op, "input");
  check_floating(input, op);
  DimVector ns(normalized_shape.begin(), normalized_shape.end());
  EMBER_CHECK(!ns.empty(), op, ": expected normalized_shape to be at least 1-dimensional, i.e., "
              "containing at least one element, but got normalized_shape = []");
  const int64_t axis = input.dim() - static_cast<int64_t>(ns.size());
  bool match = axis >= 0;
  for (size_t i = 0; match && i < ns.size(); ++i) match = input.size(axis + int64_t(i)) == ns[i];
  EMBER_CHECK(match, op, ": given normalized_shape=", shape_str(ns), ", expected input with shape [*, ",
              shape_str(ns).substr(1), ", but got input of size", shape_str(input.sizes()));
  const std::pair<const Tensor*, const char*> params[] = {{&weight, "weight"}, {&bias, "bias"}};
  for (auto [t, name] : params) {
    if (!t->defined()) continue;
    EMBER_CHECK(t->sizes() == ns, op, ": expected ", name, " to be of same shape as normalized_shape, "
                "but got ", name, " of shape ", shape_str(t->sizes()), " and normalized_shape = ",
                shape_str(ns));
    check_param_dtype(*t, input, op, name);
  }
  OpCall call(opid::layer_norm, {input, weight, bias},
              LayerNormArgs{.normalized_shape = ns, .eps = eps}.attrs());
  dispatch(call);
  return {call.outputs[0], call.outputs[1], call.outputs[2]};
}

Tensor layer_norm(const Tensor& input, const IntList& normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps) {
  return std::get<0>(native_layer_norm(input, normalized_shape, weight, bias, eps));
}

std::tuple<Tensor, Tensor, Tensor> native_group_norm(const Tensor& input, int64_t num_groups,
                                                     const Tensor& weight, const Tensor& bias,
                                                     double eps) {
  const char* op = "group_norm";
  check_defined(input, op, "input");
  check_floating(input, op);
  EMBER_CHECK(input.dim() >= 2, op, ": expected at least 2 dimensions for input tensor but received ",
              input.dim());
  EMBER_CHECK(num_groups > 0, op, ": num_groups must be positive, got ", num_groups);
  const int64_t C = input.size(1);
  EMBER_CHECK(C % num_groups == 0, op, ": expected number of channels in input to be divisible by "
              "num_groups, but got input of shape ", shape_str(input.sizes()), " and num_groups=",
              num_groups);
  const std::pair<const Tensor*, const char*> params[] = {{&weight, "weight"}, {&bias, "bias"}};
  for (auto [t, name] : params) {
    if (!t->defined()) continue;
    EMBER_CHECK(t->dim() == 1 && t->numel() == C, op, ": expected ", name, " to be a vector of size "
                "equal to the number of channels in input, but got ", name, " of shape ",
                shape_str(t->sizes()), " and input of shape ", shape_str(input.sizes()));
    check_param_dtype(*t, input, op, name);
  }
  OpCall call(opid::group_norm, {input, weight, bias},
              GroupNormArgs{.num_groups = num_groups, .eps = eps}.attrs());
  dispatch(call);
  return {call.outputs[0], call.outputs[1], call.outputs[2]};
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias,
                  double eps) {
  if (input.defined() && input.dim() >= 2 && num_groups > 0 && input.size(1) % num_groups == 0) {
    // F.group_norm's own check (a ValueError in PyTorch): one value per group.
    const int64_t per_group = input.numel() / num_groups;
    EMBER_CHECK_VALUE(per_group != 1, "group_norm: expected more than 1 value per group, got input "
                      "size ", shape_str(input.sizes()), " with num_groups=", num_groups);
  }
  return std::get<0>(native_group_norm(input, num_groups, weight, bias, eps));
}

}  // namespace ember
