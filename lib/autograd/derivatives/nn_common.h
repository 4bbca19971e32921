// Helpers shared by the derivative rows of the nn ops (nn.cpp) and of their
// fused backward primitives (nn_backward.cpp): the scale a loss's reduction
// puts on each element, and the class-dim geometry of the class losses.
#pragma once
#include "ember/ops/elementwise.h"
#include "ember/ops/views.h"
#include "ember/options.h"
#include "ember/tensor.h"

namespace ember::autograd::nn_rows {

constexpr int64_t kReductionNone = 0, kReductionMean = 1;

inline const char* reduction_name(int64_t reduction) {
  return reduction == kReductionNone ? "none" : reduction == kReductionMean ? "mean" : "sum";
}

// What an element-wise loss's gradient is multiplied by per element: g itself
// (reduction none: the loss's shape; sum: one value), or g / numel for a mean.
inline Tensor loss_scale(const Tensor& g, int64_t reduction, int64_t numel) {
  return reduction == kReductionMean ? g / Scalar(static_cast<double>(numel)) : g;
}

// The dtype and device of t, for the tensors a row makes itself: a factory without a
// device makes a CPU tensor, which a CUDA input's op then refuses.
inline TensorOptions options_of(const Tensor& t) { return TensorOptions(t.dtype()).device(t.device()); }

// a * w, or a where the optional w (a weight, pos_weight) was left out.
inline Tensor times_optional(const Tensor& a, const Tensor& w) { return w.defined() ? a * w : a; }

// ---- class losses: input [C], [N, C] or [N, C, d...] ----------------------------------------
inline int64_t class_dim(const Tensor& input) { return input.dim() == 1 ? 0 : 1; }

// A [C] class weight shaped to broadcast against the input (undefined stays undefined).
inline Tensor class_weight_view(const Tensor& weight, const Tensor& input) {
  if (!weight.defined() || input.dim() == 1) return weight;
  IntList shape(static_cast<size_t>(input.dim()), 1);
  shape[1] = -1;
  return reshape(weight, shape);
}

// The per-position factor of a class loss's gradient, with a class dim of 1 to
// broadcast against the input: g (none, one value per position) or g / denominator
// for a mean (g then holds one value).
inline Tensor class_position_scale(const Tensor& g, const Tensor& input, int64_t reduction,
                                   const Tensor& denominator) {
  if (reduction == kReductionNone) return unsqueeze(g, class_dim(input));
  const Tensor one = reshape(g, IntList{});
  return reduction == kReductionMean ? one / denominator : one;
}

}  // namespace ember::autograd::nn_rows
