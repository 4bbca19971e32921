// The derivative row of scaled_dot_product_flash_attention (the fused CPU attention
// of lib/ops/attention_flash.h). A plain backward runs the fused backward kernel,
// which recomputes the weights block by block from the saved logsumexp. With
// create_graph the same gradients are written with ember ops (the weights
// materialized, as the composite scaled_dot_product_attention holds them), so that
// higher derivatives see their dependence on q, k and v; dropout's mask comes from
// the same Philox counters the kernels used. The mask gets no gradient: a mask that
// needs one makes scaled_dot_product_attention take the composite.
#include <limits>

#include "autograd/derivatives.h"
#include "dispatch/args/nn.h"
#include "dispatch/op_ids/nn.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"
#include "ops/attention_flash.h"

namespace ember::autograd {
namespace {

// [lead..., H_q, S, E] gradients of repeated key/value heads, summed back to H_kv heads.
Tensor sum_head_groups(const Tensor& t, int64_t groups) {
  if (groups == 1) return t;
  DimVector shape = t.sizes();
  const int64_t heads = shape[shape.size() - 3];
  shape[shape.size() - 3] = heads / groups;
  shape.insert(shape.end() - 2, groups);  // [..., H_kv, groups, S, E]
  return sum(t.reshape(IntList(shape.begin(), shape.end())), IntList{-3});
}

// dQ, dK, dV of out = (P * keep) V with P = safe_softmax(scale * Q K^T + mask).
std::tuple<Tensor, Tensor, Tensor> flash_grads_composite(const Tensor& grad, const Tensor& q, const Tensor& k,
                                                         const Tensor& v, const Tensor& mask,
                                                         const ScaledDotProductFlashAttentionArgs& a) {
  const double neg_inf = -std::numeric_limits<double>::infinity();
  const int64_t L = q.size(-2), S = k.size(-2);
  const Tensor kr = sdpa_repeat_heads(k, a.groups), vr = sdpa_repeat_heads(v, a.groups);
  Tensor scores = matmul(q, kr.transpose(-2, -1)) * Scalar(a.scale);
  if (a.is_causal)
    scores = where(tril(ones({L, S}, TensorOptions().dtype(kBool))), scores, Scalar(neg_inf));
  else if (mask.defined())
    scores = mask.dtype() == kBool ? where(mask, scores, Scalar(neg_inf)) : scores + mask;
  const Tensor p = sdpa_safe_softmax(scores);
  const Tensor keep = a.dropout_p > 0.0 ? sdpa_flash_dropout_factors(scores.sizes(), q.dtype(), a.dropout_p,
                                                                     a.seed, a.offset)
                                        : Tensor();
  const Tensor pd = keep.defined() ? p * keep : p;
  Tensor dp = matmul(grad, vr.transpose(-2, -1));
  if (keep.defined()) dp = dp * keep;
  const Tensor ds = p * (dp - sum(dp * p, IntList{-1}, true));
  return {matmul(ds, kr) * Scalar(a.scale),
          sum_head_groups(matmul(ds.transpose(-2, -1), q) * Scalar(a.scale), a.groups),
          sum_head_groups(matmul(pd.transpose(-2, -1), grad), a.groups)};
}

// in: query, key, value, attn_mask?; out: output, logsumexp.
EMBER_DERIVATIVE_FULL(scaled_dot_product_flash_attention, save_inputs({0, 1, 2, 3}), save_inputs({0, 1}), {
  const auto a = ScaledDotProductFlashAttentionArgs::from(ctx);
  const Tensor q = ctx.input(0), k = ctx.input(1), v = ctx.input(2), mask = ctx.input(3);
  auto [dq, dk, dv] =
      is_grad_enabled()
          ? flash_grads_composite(ctx.grad(0), q, k, v, mask, a)
          : sdpa_flash_backward(ctx.grad(0), q, k, v, mask, ctx.output(0), ctx.output(1), a.dropout_p,
                                a.is_causal, a.scale, a.groups, a.seed, a.offset);
  return {dq, dk, dv, Tensor()};
});

}  // namespace
}  // namespace ember::autograd
