// Derivative rows of the nn ops (losses), through the fused backward kernels of
// lib/ops/nn_backward_*.cpp, that need more than one expression per input. The
// one-expression formulas (nll_loss, mse_loss, l1_loss, smooth_l1_loss,
// huber_loss, embedding, dropout, pad, interpolate) live in their schema rows
// (lib/dispatch/schema/nn.toml, grad.<input>), generated into
// build/generated/autograd/. The normalizations' rows are in nn_norm.cpp, the
// fused RNN cells' in rnn.cpp; the rows of the backward kernels themselves
// (second derivatives) in nn_backward.cpp.
#include "autograd/derivatives.h"
#include "autograd/derivatives/nn_common.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/nn.h"
#include "ember/ops/nn_backward.h"
#include "ember/ops/reduce.h"
#include "dispatch/args/nn.h"
#include "dispatch/op_ids/nn.h"

namespace ember::autograd {
namespace {

using namespace nn_rows;

// ---- class losses -------------------------------------------------------------------------

// The gradient wrt class probabilities (a floating target of the input's shape):
// loss = -sum_c w_c q'_c log_softmax(x)_c with q' = (1 - eps) q + eps / C.
Tensor cross_entropy_target_grad(BackwardCtx& ctx, const CrossEntropyArgs& a) {
  const Tensor x = ctx.input(0);
  const int64_t cdim = class_dim(x);
  const double positions = x.numel() == 0 ? 0.0 : double(x.numel()) / x.size(cdim);
  const Tensor scale = class_position_scale(ctx.grad(0), x, a.reduction,
                                            scalar_tensor(positions, options_of(x)));
  return times_optional(scale * log_softmax(x, cdim), class_weight_view(ctx.input(2), x)) *
         -(1.0 - a.label_smoothing);
}

EMBER_DERIVATIVE(cross_entropy, save_inputs({0, 1, 2}), {
  const CrossEntropyArgs a = CrossEntropyArgs::from(ctx);
  const bool probs = ctx.input_dtype(1) != kInt64 && ctx.input_dtype(1) != kUInt8;
  return {ctx.needs_grad(0) ? cross_entropy_backward(ctx.grad(0), ctx.input(0), ctx.input(1), ctx.input(2),
                                                     a.reduction, a.ignore_index, a.label_smoothing)
                            : Tensor(),
          probs && ctx.needs_grad(1) ? cross_entropy_target_grad(ctx, a) : Tensor(), Tensor()};
});

// ---- element-wise losses ------------------------------------------------------------------

// loss = -w (t log x + (1 - t) log(1 - x)): wrt t, -w logit(x) (unclamped, as
// PyTorch); wrt w, the unweighted loss.
EMBER_DERIVATIVE(binary_cross_entropy, save_inputs({0, 1, 2}), {
  const BinaryCrossEntropyArgs a = BinaryCrossEntropyArgs::from(ctx);
  const Tensor x = ctx.input(0), t = ctx.input(1), w = ctx.input(2);
  const Tensor scale = loss_scale(ctx.grad(0), a.reduction, x.numel());
  return {ctx.needs_grad(0) ? binary_cross_entropy_backward(ctx.grad(0), x, t, w, a.reduction) : Tensor(),
          ctx.needs_grad(1) ? times_optional(scale * (log1p(neg(x)) - log(x)), w) : Tensor(),
          ctx.needs_grad(2) ? scale * binary_cross_entropy(x, t, Tensor(), "none") : Tensor()};
});

// loss = w (pw t softplus(-x) + (1 - t) softplus(x)). softplus(-x) is the
// unweighted loss at target 1, softplus(x) at target 0 (stable for any x).
EMBER_DERIVATIVE(binary_cross_entropy_with_logits, save_inputs({0, 1, 2, 3}), {
  const BinaryCrossEntropyWithLogitsArgs a = BinaryCrossEntropyWithLogitsArgs::from(ctx);
  const Tensor x = ctx.input(0), t = ctx.input(1), w = ctx.input(2), pw = ctx.input(3);
  const Tensor scale = times_optional(loss_scale(ctx.grad(0), a.reduction, x.numel()), w);
  auto softplus_of_neg_x = [&] { return binary_cross_entropy_with_logits(x, ones_like(x), {}, "none"); };
  Tensor grad_target;
  if (ctx.needs_grad(1))  // pw softplus(-x) - softplus(x); -x without pos_weight
    grad_target = scale * (pw.defined() ? pw * softplus_of_neg_x() -
                                              binary_cross_entropy_with_logits(x, zeros_like(x), {}, "none")
                                        : neg(x));
  return {ctx.needs_grad(0) ? binary_cross_entropy_with_logits_backward(ctx.grad(0), x, t, w, pw, a.reduction)
                            : Tensor(),
          grad_target,
          ctx.needs_grad(2) ? loss_scale(ctx.grad(0), a.reduction, x.numel()) *
                                  binary_cross_entropy_with_logits(x, t, {}, "none", pw)
                            : Tensor(),
          ctx.needs_grad(3) ? scale * t * softplus_of_neg_x() : Tensor()};
});

}  // namespace
}  // namespace ember::autograd
