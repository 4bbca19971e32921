// Backward primitives of batch_norm, layer_norm and group_norm: argument
// checks, then one dispatched op each (kernels: lib/cpu/norm_backward.cpp).
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/nn_backward.h"
#include "ops/nn_backward_checks.h"

namespace ember {

using namespace nn_checks;

namespace {

// Checks the statistic `t` (mean / rstd / running stats) has `n` values.
void check_stat(const Tensor& t, int64_t n, const char* op, const char* name) {
  check_defined(t, op, name);
  check_floating(t, op, name);
  EMBER_CHECK(t.numel() == n, op, ": expected ", name, " to hold ", n, " values, got ", describe(t));
}

// A weight / bias of n values (any shape, as the forward accepts).
void check_param(const Tensor& p, int64_t n, const Tensor& input, const char* op, const char* name) {
  if (!p.defined()) return;
  EMBER_CHECK(p.numel() == n, op, ": expected ", name, " to hold ", n, " values, got ", describe(p));
  check_param_dtype(p, input, op, name);
}

std::tuple<Tensor, Tensor, Tensor> three(const OpCall& call) {
  return {call.outputs[0], call.outputs[1], call.outputs[2]};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(
    const Tensor& grad_out, const Tensor& input, const Tensor& weight, const Tensor& running_mean,
    const Tensor& running_var, const Tensor& save_mean, const Tensor& save_invstd, bool train,
    double eps, GradMask output_mask) {
  const char* op = "native_batch_norm_backward";
  check_defined(input, op, "input");
  check_floating(input, op);
  EMBER_CHECK(input.dim() >= 2, op, ": expected an input of at least 2 dims (N, C, ...), got ",
              describe(input));
  const Tensor g = grad_like(grad_out, input, op);
  const int64_t C = input.size(1);
  check_param(weight, C, input, op, "weight");
  if (train) {
    check_stat(save_mean, C, op, "save_mean");
    check_stat(save_invstd, C, op, "save_invstd");
  } else {
    check_stat(running_mean, C, op, "running_mean");
    check_stat(running_var, C, op, "running_var");
  }
  OpCall call(opid::batch_norm_backward,
              {g, input, weight, running_mean, running_var, save_mean, save_invstd},
              BatchNormBackwardArgs{.train = train, .eps = eps, .output_mask = mask_ints(output_mask)}
                  .attrs());
  dispatch(call);
  return three(call);
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward(
    const Tensor& grad_out, const Tensor& input, const IntList& normalized_shape, const Tensor& mean,
    const Tensor& rstd, const Tensor& weight, const Tensor& bias, GradMask output_mask) {
  const char* op = "native_layer_norm_backward";
  check_defined(input, op, "input");
  check_floating(input, op);
  const DimVector ns(normalized_shape.begin(), normalized_shape.end());
  const int64_t axis = input.dim() - static_cast<int64_t>(ns.size());
  bool match = !ns.empty() && axis >= 0;
  for (size_t i = 0; match && i < ns.size(); ++i) match = input.size(axis + int64_t(i)) == ns[i];
  EMBER_CHECK(match, op, ": normalized_shape ", shape_str(ns), " is not the trailing shape of input ",
              describe(input));
  const Tensor g = grad_like(grad_out, input, op);
  int64_t rows = 1;
  for (int64_t d = 0; d < axis; ++d) rows *= input.size(d);
  check_stat(mean, rows, op, "mean");
  check_stat(rstd, rows, op, "rstd");
  int64_t n = 1;
  for (int64_t v : ns) n *= v;
  check_param(weight, n, input, op, "weight");
  check_param(bias, n, input, op, "bias");
  OpCall call(opid::layer_norm_backward, {g, input, mean, rstd, weight, bias},
              LayerNormBackwardArgs{.normalized_shape = ns, .output_mask = mask_ints(output_mask)}.attrs());
  dispatch(call);
  return three(call);
}

std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward(
    const Tensor& grad_out, const Tensor& input, const Tensor& mean, const Tensor& rstd,
    const Tensor& weight, int64_t N, int64_t C, int64_t HxW, int64_t group, GradMask output_mask) {
  const char* op = "native_group_norm_backward";
  check_defined(input, op, "input");
  check_floating(input, op);
  EMBER_CHECK(input.dim() >= 2 && input.size(0) == N && input.size(1) == C && N * C * HxW == input.numel(),
              op, ": N=", N, ", C=", C, ", HxW=", HxW, " do not describe input ", describe(input));
  EMBER_CHECK(group > 0 && C % group == 0, op, ": expected the number of channels (", C,
              ") to be divisible by group (", group, ")");
  const Tensor g = grad_like(grad_out, input, op);
  check_stat(mean, N * group, op, "mean");
  check_stat(rstd, N * group, op, "rstd");
  check_param(weight, C, input, op, "weight");
  OpCall call(opid::group_norm_backward, {g, input, mean, rstd, weight},
              GroupNormBackwardArgs{.group = group, .output_mask = mask_ints(output_mask)}.attrs());
  dispatch(call);
  return three(call);
}

}  // namespace ember
