// Derivative rows of layer_norm, batch_norm and group_norm. A plain backward
// runs the fused kernels (lib/ops/nn_backward_norm.cpp). With create_graph the
// same gradients are written with ember ops instead, the statistics recomputed
// from the input: the saved mean / rstd are outputs of the forward node, and a
// formula built on them would lose their dependence on the input (their rows
// give no gradient), so higher derivatives would come out wrong.
#include <numeric>

#include "autograd/derivatives.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/nn_backward.h"
#include "ember/ops/reduce.h"
#include "ember/ops/views.h"
#include "dispatch/args/nn.h"
#include "dispatch/op_ids/nn.h"

namespace ember::autograd {
namespace {

IntList ints(const DimVector& v) { return IntList(v.begin(), v.end()); }
IntList dim_range(int64_t begin, int64_t end) {
  IntList dims(static_cast<size_t>(std::max<int64_t>(end - begin, 0)));
  std::iota(dims.begin(), dims.end(), begin);
  return dims;
}
// The dims of [N, C, *] other than C: batch_norm's statistics, the parameters' gradient sums.
IntList non_channel_dims(int64_t nd) {
  IntList dims = dim_range(2, nd);
  dims.insert(dims.begin(), 0);
  return dims;
}
// A per-channel [C] parameter (any shape of C values) shaped to broadcast against [N, C, *].
Tensor channel_view(const Tensor& p, int64_t nd) {
  if (!p.defined()) return p;
  IntList shape(static_cast<size_t>(nd), 1);
  shape[1] = -1;
  return reshape(p, shape);
}

// ---- the composite formulas (create_graph) ------------------------------------------------

// x standardized over dims: xhat = (x - mean) * rstd, rstd = 1 / sqrt(biased var + eps).
struct Standardized {
  Tensor xhat, rstd;
};

Standardized standardize(const Tensor& x, const IntList& dims, double eps) {
  const Tensor centered = x - mean(x, dims, true);
  const Tensor rstd = rsqrt(mean(centered * centered, dims, true) + Scalar(eps));
  return {centered * rstd, rstd};
}

// The gradient wrt x given the one wrt xhat, through xhat and the statistics.
Tensor standardized_input_grad(const Tensor& grad_xhat, const Standardized& s, const IntList& dims) {
  return s.rstd * (grad_xhat - mean(grad_xhat, dims, true) - s.xhat * mean(grad_xhat * s.xhat, dims, true));
}

// t summed over dims (none: t itself), in the shape of the parameter it is the gradient of.
Tensor param_grad(const Tensor& t, const IntList& dims, const DimVector& param_sizes) {
  return reshape(dims.empty() ? t : sum(t, dims), ints(param_sizes));
}

// y = xhat * weight + bias: the gradients wrt (input, weight, bias). input_grad maps
// the gradient wrt xhat to the one wrt x; `reduced`: the dims weight and bias broadcast over.
template <typename InputGrad>
TensorList affine_grads(BackwardCtx& ctx, const Tensor& xhat, const Tensor& weight_b, const IntList& reduced,
                        size_t weight_index, const InputGrad& input_grad) {
  const Tensor g = ctx.grad(0);
  auto wanted = [&](size_t i) { return ctx.needs_grad(i) && ctx.input_defined(i); };
  TensorList grads(weight_index + 2);
  if (ctx.needs_grad(0)) grads[0] = input_grad(weight_b.defined() ? g * weight_b : g);
  if (wanted(weight_index)) grads[weight_index] = param_grad(g * xhat, reduced, ctx.input_sizes(weight_index));
  if (wanted(weight_index + 1)) grads[weight_index + 1] = param_grad(g, reduced, ctx.input_sizes(weight_index + 1));
  return grads;
}

GradMask grad_mask(BackwardCtx& ctx, size_t weight_index) {
  return {ctx.needs_grad(0), ctx.needs_grad(weight_index) && ctx.input_defined(weight_index),
          ctx.needs_grad(weight_index + 1) && ctx.input_defined(weight_index + 1)};
}

// ---- the rows ----------------------------------------------------------------------------------

// in: input, weight, bias; attrs: normalized_shape, eps; out: y, mean, rstd.
EMBER_DERIVATIVE_FULL(layer_norm, save_inputs({0, 1, 2}), save_inputs({1, 2}), {
  const LayerNormArgs a = LayerNormArgs::from(ctx);
  const Tensor x = ctx.input(0), w = ctx.input(1);
  if (is_grad_enabled()) {
    const int64_t axis = x.dim() - static_cast<int64_t>(a.normalized_shape.size());
    const IntList dims = dim_range(axis, x.dim());
    const Standardized s = standardize(x, dims, a.eps);
    return affine_grads(ctx, s.xhat, w, dim_range(0, axis), 1,
                        [&](const Tensor& gxhat) { return standardized_input_grad(gxhat, s, dims); });
  }
  auto [gi, gw, gb] = native_layer_norm_backward(ctx.grad(0), x, ints(a.normalized_shape), ctx.output(1),
                                                 ctx.output(2), w, ctx.input(2), grad_mask(ctx, 1));
  return {gi, gw, gb};
});

// in: input [N, C, *], running_mean, running_var, weight, bias; attrs: training,
// momentum, eps; out: y, save_mean, save_invstd. The running stats are not
// differentiated; in training they were updated in place and are not read here.
EMBER_DERIVATIVE_FULL(batch_norm, save_inputs({0, 1, 2, 3}), save_inputs({1, 2}), {
  const BatchNormArgs a = BatchNormArgs::from(ctx);
  const Tensor x = ctx.input(0), w = ctx.input(3);
  if (is_grad_enabled()) {
    const IntList dims = non_channel_dims(x.dim());
    if (a.training) {
      const Standardized s = standardize(x, dims, a.eps);
      return affine_grads(ctx, s.xhat, channel_view(w, x.dim()), dims, 3,
                          [&](const Tensor& gxhat) { return standardized_input_grad(gxhat, s, dims); });
    }
    const Tensor invstd = rsqrt(channel_view(detach(ctx.input(2)), x.dim()) + Scalar(a.eps));
    const Tensor xhat = (x - channel_view(detach(ctx.input(1)), x.dim())) * invstd;
    return affine_grads(ctx, xhat, channel_view(w, x.dim()), dims, 3,
                        [&](const Tensor& gxhat) { return gxhat * invstd; });
  }
  auto [gi, gw, gb] = native_batch_norm_backward(
      ctx.grad(0), x, w, a.training ? Tensor() : ctx.input(1), a.training ? Tensor() : ctx.input(2),
      a.training ? ctx.output(1) : Tensor(), a.training ? ctx.output(2) : Tensor(), a.training, a.eps,
      grad_mask(ctx, 3));
  return {gi, Tensor(), Tensor(), gw, gb};
});

// in: input [N, C, *], weight, bias; attrs: num_groups, eps; out: y, mean [N, G], rstd [N, G].
EMBER_DERIVATIVE_FULL(group_norm, save_inputs({0, 1}), save_inputs({1, 2}), {
  const GroupNormArgs a = GroupNormArgs::from(ctx);
  const Tensor x = ctx.input(0), w = ctx.input(1);
  const int64_t N = x.size(0), C = x.size(1);
  int64_t HxW = 1;
  for (int64_t d = 2; d < x.dim(); ++d) HxW *= x.size(d);
  if (is_grad_enabled()) {
    const IntList grouped{N, a.num_groups, C / a.num_groups * HxW}, stat_dims{2};
    const Standardized s = standardize(reshape(x, grouped), stat_dims, a.eps);
    return affine_grads(ctx, reshape(s.xhat, ints(x.sizes())), channel_view(w, x.dim()),
                        non_channel_dims(x.dim()), 1, [&](const Tensor& gxhat) {
                          return reshape(standardized_input_grad(reshape(gxhat, grouped), s, stat_dims),
                                         ints(x.sizes()));
                        });
  }
  auto [gi, gw, gb] = native_group_norm_backward(ctx.grad(0), x, ctx.output(1), ctx.output(2), w, N, C,
                                                 HxW, a.num_groups, grad_mask(ctx, 1));
  return {gi, gw, gb};
});

}  // namespace
}  // namespace ember::autograd
