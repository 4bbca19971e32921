// Derivative rows of the fused nn backward primitives (lib/dispatch/schema/nn_backward.toml):
// what makes the nn rows twice (and more) differentiable. Each is written with
// ember ops, often with the primitive itself: all of them are linear in
// grad_output, so their derivative wrt it is the primitive at grad_output = 1
// (or its adjoint: pad for pad_backward, interpolate for interpolate_backward).
// The one-expression formulas (dropout_backward, pad_backward and the pool
// primitives') live in their schema rows (lib/dispatch/schema/nn_backward.toml,
// grad.grad_output), generated into build/generated/autograd/; the convolution
// primitives' rows are in conv.cpp, the fused RNN cells' primitives have none.
// The normalizations' primitives have no row: with create_graph the norm rows
// use composite formulas instead (nn_norm.cpp).
#include <cmath>

#include "autograd/derivatives.h"
#include "autograd/derivatives/nn_common.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/nn.h"
#include "ember/ops/nn_backward.h"
#include "ember/ops/reduce.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/op_ids/nn_backward.h"

namespace ember::autograd {
namespace {

using namespace nn_rows;

IntList ints(const DimVector& v) { return IntList(v.begin(), v.end()); }

// ---- element-wise losses: in grad_output, input, target (...); attr reduction -----------------

// d = scale * k(input, target, ...), scale = grad_output (/ numel for a mean).
struct PointwiseArgs {
  Tensor g, x, t;
  Tensor G;      // the gradient arriving for d (the broadcast shape of input and target)
  Tensor scale;  // per element
  int64_t reduction;
};

PointwiseArgs pointwise_args(BackwardCtx& ctx, int64_t reduction) {
  const Tensor G = ctx.grad(0), g = ctx.input(0);
  return {g, ctx.input(1), ctx.input(2), G, loss_scale(g, reduction, G.numel()), reduction};
}

// {wrt grad_output, input, target} of a pointwise loss whose k depends on
// input - target: backward_at(g') is the primitive at grad_output g';
// grad_input() the derivative wrt input (undefined: zero almost everywhere).
template <typename BackwardAt, typename GradInput>
TensorList difference_loss_grads(BackwardCtx& ctx, const PointwiseArgs& a, const BackwardAt& backward_at,
                                 const GradInput& grad_input) {
  const Tensor gi = ctx.needs_grad(1) || ctx.needs_grad(2) ? grad_input() : Tensor();
  return {ctx.needs_grad(0) ? a.G * backward_at(ones_like(a.g)) : Tensor(), ctx.needs_grad(1) ? gi : Tensor(),
          ctx.needs_grad(2) && gi.defined() ? neg(gi) : Tensor()};
}

EMBER_DERIVATIVE(mse_loss_backward, save_inputs({0, 1, 2}), {
  const PointwiseArgs a = pointwise_args(ctx, MseLossBackwardArgs::from(ctx).reduction);
  return difference_loss_grads(
      ctx, a, [&](const Tensor& g) { return mse_loss_backward(g, a.x, a.t, a.reduction); },
      [&] { return a.G * a.scale * 2.0; });
});
EMBER_DERIVATIVE(l1_loss_backward, save_inputs({0, 1, 2}), {
  const PointwiseArgs a = pointwise_args(ctx, L1LossBackwardArgs::from(ctx).reduction);
  return difference_loss_grads(
      ctx, a, [&](const Tensor& g) { return l1_loss_backward(g, a.x, a.t, a.reduction); }, [] { return Tensor(); });
});
// Inside |input - target| < beta the gradient is (input - target) / beta; outside, constant.
EMBER_DERIVATIVE(smooth_l1_loss_backward, save_inputs({0, 1, 2}), {
  const SmoothL1LossBackwardArgs args = SmoothL1LossBackwardArgs::from(ctx);
  const PointwiseArgs a = pointwise_args(ctx, args.reduction);
  return difference_loss_grads(
      ctx, a, [&](const Tensor& g) { return smooth_l1_loss_backward(g, a.x, a.t, a.reduction, args.beta); },
      [&] {
        return args.beta == 0 ? Tensor()
                              : where(lt(abs(a.x - a.t), Scalar(args.beta)), a.G * a.scale / args.beta, Scalar(0));
      });
});
EMBER_DERIVATIVE(huber_loss_backward, save_inputs({0, 1, 2}), {
  const HuberLossBackwardArgs args = HuberLossBackwardArgs::from(ctx);
  const PointwiseArgs a = pointwise_args(ctx, args.reduction);
  return difference_loss_grads(
      ctx, a, [&](const Tensor& g) { return huber_loss_backward(g, a.x, a.t, a.reduction, args.delta); },
      [&] { return where(lt(abs(a.x - a.t), Scalar(args.delta)), a.G * a.scale, Scalar(0)); });
});

// in + weight. d = scale w (x - t) / max(x (1 - x), eps), eps the kernel's 1e-12f.
EMBER_DERIVATIVE(binary_cross_entropy_backward, save_inputs({0, 1, 2, 3}), {
  const PointwiseArgs a = pointwise_args(ctx, BinaryCrossEntropyBackwardArgs::from(ctx).reduction);
  const Tensor w = ctx.input(3), wG = times_optional(a.G * a.scale, w);
  const double eps = static_cast<double>(1e-12f);
  const Tensor den = a.x * (1.0 - a.x), kept = ge(den, Scalar(eps)), den_c = where(kept, den, Scalar(eps));
  return {ctx.needs_grad(0) ? a.G * binary_cross_entropy_backward(ones_like(a.g), a.x, a.t, w, a.reduction)
                            : Tensor(),
          ctx.needs_grad(1)  // d/dx (x - t) / (x (1 - x)) = (x^2 - 2 x t + t) / (x (1 - x))^2
              ? wG * where(kept, (a.x * a.x - a.x * a.t * 2.0 + a.t) / (den_c * den_c), Scalar(1.0 / eps))
              : Tensor(),
          ctx.needs_grad(2) ? neg(wG / den_c) : Tensor(),
          ctx.needs_grad(3) ? a.G * binary_cross_entropy_backward(a.g, a.x, a.t, Tensor(), a.reduction) : Tensor()};
});

// in + weight, pos_weight. d = scale w ((pw t + 1 - t) sigmoid(x) - pw t).
EMBER_DERIVATIVE(binary_cross_entropy_with_logits_backward, save_inputs({0, 1, 2, 3, 4}), {
  const PointwiseArgs a = pointwise_args(ctx, BinaryCrossEntropyWithLogitsBackwardArgs::from(ctx).reduction);
  const Tensor w = ctx.input(3), pw = ctx.input(4), wG = times_optional(a.G * a.scale, w);
  const Tensor s = sigmoid(a.x);
  auto backward_at = [&](const Tensor& g, const Tensor& weight) {
    return binary_cross_entropy_with_logits_backward(g, a.x, a.t, weight, pw, a.reduction);
  };
  Tensor grad_target;
  if (ctx.needs_grad(2)) grad_target = pw.defined() ? wG * ((pw - 1.0) * s - pw) : neg(wG);
  return {ctx.needs_grad(0) ? a.G * backward_at(ones_like(a.g), w) : Tensor(),
          ctx.needs_grad(1) ? wG * (times_optional(a.t, pw) + 1.0 - a.t) * s * (1.0 - s) : Tensor(), grad_target,
          ctx.needs_grad(3) ? a.G * backward_at(a.g, Tensor()) : Tensor(),
          ctx.needs_grad(4) ? wG * a.t * (s - 1.0) : Tensor()};
});

// ---- class losses -------------------------------------------------------------------------------

// The class weight is not differentiated (as in the nll_loss / cross_entropy rows;
// PyTorch refuses a weight that requires grad): its gradient is left undefined.

// in: grad_output, input, target, weight, total_weight; attrs: reduction, ignore_index.
// d[n, t_n] = -w_{t_n} g (/ total weight): constant in input, linear in grad_output,
// where it is nll_loss itself.
EMBER_DERIVATIVE_FULL(nll_loss_backward, save_inputs({2, 3, 4}), save_inputs({0}), {
  const NllLossBackwardArgs a = NllLossBackwardArgs::from(ctx);
  const Tensor G = ctx.grad(0), t = ctx.input(2), w = ctx.input(3), total = ctx.input(4);
  const bool given_mean = total.defined() && a.reduction == kReductionMean;
  Tensor grad_g, grad_total;
  if (ctx.needs_grad(0)) {
    grad_g = given_mean ? nll_loss(G, t, w, a.ignore_index, "sum") / total
                        : nll_loss(G, t, w, a.ignore_index, reduction_name(a.reduction));
    grad_g = reshape(grad_g, ints(ctx.input_sizes(0)));
  }
  if (ctx.needs_grad(4) && given_mean)
    grad_total = reshape(neg(sum(G * ctx.output(0))) / total, ints(ctx.input_sizes(4)));
  return {grad_g, Tensor(), Tensor(), Tensor(), grad_total};
});

// in: grad_output, input (logits), target, weight; attrs: reduction, ignore_index,
// label_smoothing. Per position d = s p - r, p = softmax(input), r = s q'' with
// q''_c = w_c q'_c / sum_c w_c q'_c independent of the input (see
// lib/cpu/loss_class_backward.cpp), so the Hessian term is s (diag(p) - p p^T).
struct CrossEntropyParts {
  Tensor x, t, w_b;  // w_b: the weight shaped against x, or undefined
  int64_t cdim;
  double eps;  // label smoothing
  bool probs;
  Tensor scale;  // the position's factor: g (/ the mean's denominator), class dim 1
  Tensor s;      // scale times sum_c w_c q'_c: the coefficient of p in d
};

CrossEntropyParts cross_entropy_parts(BackwardCtx& ctx, const CrossEntropyBackwardArgs& a) {
  CrossEntropyParts c;
  c.x = ctx.input(1);
  c.t = ctx.input(2);
  c.cdim = class_dim(c.x);
  c.eps = a.label_smoothing;
  c.probs = c.t.is_floating_point();
  c.w_b = class_weight_view(ctx.input(3), c.x);
  const int64_t C = c.x.size(c.cdim);
  const TensorOptions opts = options_of(c.x);
  if (c.probs) {  // the mean is over positions
    const double positions = C == 0 ? 0.0 : double(c.x.numel()) / double(C);
    c.scale = class_position_scale(ctx.input(0), c.x, a.reduction, scalar_tensor(positions, opts));
    const Tensor smoothed = c.t * (1.0 - c.eps) + c.eps / double(C);
    c.s = c.scale * sum(times_optional(smoothed, c.w_b), IntList{c.cdim}, true);
    return c;
  }
  // Class indices: nll_loss of -1 picks w_{t_n} (0 where ignored), its sum is the mean's denominator.
  const Tensor minus_ones = full(ints(c.x.sizes()), -1, opts);
  const Tensor target_weight = nll_loss(minus_ones, c.t, ctx.input(3), a.ignore_index, "none");
  const Tensor kept = nll_loss(minus_ones, c.t, Tensor(), a.ignore_index, "none");
  // Smoothing puts eps / C of every class weight on each position not ignored.
  const Tensor smoothing = kept * (c.eps / double(C));
  c.scale = class_position_scale(ctx.input(0), c.x, a.reduction, sum(target_weight));
  c.s = c.scale * unsqueeze(target_weight * (1.0 - c.eps) +
                                (c.w_b.defined() ? smoothing * sum(c.w_b) : smoothing * double(C)),
                            c.cdim);
  return c;
}

EMBER_DERIVATIVE(cross_entropy_backward, save_inputs({0, 1, 2, 3}), {
  const CrossEntropyBackwardArgs a = CrossEntropyBackwardArgs::from(ctx);
  const CrossEntropyParts c = cross_entropy_parts(ctx, a);
  const Tensor G = ctx.grad(0), p = softmax(c.x, c.cdim), pG = sum(p * G, IntList{c.cdim}, true);
  Tensor grad_g;
  if (ctx.needs_grad(0))
    grad_g = sum(G * cross_entropy_backward(ones_like(ctx.input(0)), c.x, c.t, ctx.input(3), a.reduction,
                                            a.ignore_index, c.eps),
                 IntList{c.cdim});
  return {grad_g, ctx.needs_grad(1) ? c.s * p * (G - pG) : Tensor(),
          c.probs && ctx.needs_grad(2) ? times_optional(c.scale * (pG - G), c.w_b) * (1.0 - c.eps) : Tensor(),
          Tensor()};
});

// ---- embedding, interpolate ------------------------------------------------------------------------

// in: grad_output [*, D], indices [*]; attrs: num_weights, padding_idx, scale_grad_by_freq.
// d[i] = sum of grad_output rows with index i (/ their count): wrt grad_output,
// row k is G[index_k] (/ its count), zero where the index is padding_idx.
EMBER_DERIVATIVE(embedding_backward, save_inputs({1}), {
  const EmbeddingBackwardArgs a = EmbeddingBackwardArgs::from(ctx);
  const Tensor G = ctx.grad(0), idx = ctx.input(1);
  Tensor rows = embedding(idx, G);
  if (a.padding_idx < 0 && !a.scale_grad_by_freq) return {rows, Tensor()};
  IntList one_column = ints(idx.sizes());
  one_column.push_back(1);
  // The count of each index (padding_idx's is 0), read back per position: [*, 1].
  const Tensor counts = embedding_dense_backward(ones(one_column, options_of(G)), idx,
                                                 a.num_weights, a.padding_idx);
  const Tensor count = embedding(idx, counts);
  return {where(gt(count, Scalar(0)), a.scale_grad_by_freq ? rows / clamp_min(count, Scalar(1)) : rows, Scalar(0)),
          Tensor()};
});

// in: grad_output [N, C, *out]; attrs: input sizes, mode, align_corners, scales.
// Its adjoint is interpolate from the input sizes to out with the same scales:
// given all as sizes (no scales) or all as scale factors (that give out again).
EMBER_DERIVATIVE(interpolate_backward, save_none(), {
  const InterpolateBackwardArgs a = InterpolateBackwardArgs::from(ctx);
  const DimVector& out_full = ctx.input_sizes(0);
  const int64_t spatial = static_cast<int64_t>(a.input_size.size()) - 2;
  const bool nearest = a.mode == "nearest";
  const std::string mode = nearest ? "nearest" : spatial == 1 ? "linear" : spatial == 2 ? "bilinear" : "trilinear";
  const std::optional<bool> align = nearest ? std::nullopt : std::optional<bool>(a.align_corners);
  IntList out(out_full.begin() + 2, out_full.end());
  std::vector<double> scales;
  bool scales_give_out = true;
  for (int64_t d = 0; d < spatial; ++d) {
    const std::optional<double>& s = a.scales[static_cast<size_t>(d)];
    if (!s) continue;
    scales.push_back(*s);
    scales_give_out = scales_give_out && int64_t(std::floor(double(a.input_size[2 + d]) * *s)) == out[d];
  }
  if (scales.empty()) return {interpolate(ctx.grad(0), out, std::nullopt, mode, align)};
  EMBER_CHECK_AS(NotImplementedError, int64_t(scales.size()) == spatial && scales_give_out,
                 "the derivative of interpolate_backward is not implemented for scales that are given for "
                 "only some dims or do not give grad_output's sizes");
  return {interpolate(ctx.grad(0), std::nullopt, scales, mode, align, false)};
});

}  // namespace
}  // namespace ember::autograd
