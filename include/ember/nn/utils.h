// ember::nn::utils: gradient clipping (torch::nn::utils::clip_grad_norm_ and
// clip_grad_value_), applied in place to the .grad of the given parameters.
#pragma once
#include <vector>

#include "ember/tensor.h"

namespace ember::nn::utils {

// Scales the gradients so that their total norm (of all gradients as one
// vector; norm_type may be infinity) is at most max_norm. Returns the total
// norm before clipping. Parameters without a gradient are skipped.
// error_if_nonfinite: raise ember::Error when the total norm is nan or inf.
double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
// Clamps each gradient element to [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
void clip_grad_value_(const Tensor& parameter, double clip_value);

}  // namespace ember::nn::utils
