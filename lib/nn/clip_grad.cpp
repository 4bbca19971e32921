// Gradient clipping, with torch.nn.utils's formulas.
#include <cmath>
#include <limits>

#include "ember/autograd.h"
#include "ember/nn/utils.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape_index.h"

namespace ember::nn::utils {

namespace {

std::vector<Tensor> defined_grads(const std::vector<Tensor>& parameters) {
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters)
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  return grads;
}

}  // namespace

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  std::vector<Tensor> grads = defined_grads(parameters);
  if (grads.empty()) return 0.0;
  NoGradGuard no_grad;
  // The norm of the per-gradient norms is the norm of all gradients together.
  std::vector<Tensor> norms;
  for (const Tensor& g : grads) norms.push_back(norm(g.to(kFloat64), norm_type));
  double total = norm(stack(norms), norm_type).item<double>();
  EMBER_CHECK(!error_if_nonfinite || std::isfinite(total), "The total norm of order ", norm_type,
              " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error "
              "and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`");
  double clip_coef = max_norm / (total + 1e-6);
  if (clip_coef < 1)
    for (Tensor& g : grads) g.mul_(clip_coef);
  return total;
}

double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type, bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (Tensor& g : defined_grads(parameters)) clamp_(g, std::optional<Scalar>(-clip_value), std::optional<Scalar>(clip_value));
}

void clip_grad_value_(const Tensor& parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{parameter}, clip_value);
}

}  // namespace ember::nn::utils
