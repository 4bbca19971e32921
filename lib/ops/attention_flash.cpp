// The fused attention op and its backward: when scaled_dot_product_attention takes
// it, the operands it reads in place, and the dispatched calls (kernels:
// lib/cpu/attention_flash.cpp, attention_flash_backward.cpp; derivative:
// lib/autograd/derivatives/attention.cpp). The arguments arrive checked by
// scaled_dot_product_attention (attention.cpp), whose composite stays the path for
// everything the fused op does not take.
#include "ops/attention_flash.h"

#include <algorithm>
#include <cmath>
#include <limits>

// First: philox.h calls ::sqrt and ::log, which ember/ops/ would hide.
#include "kernels/attention_dropout.h"

#include "dispatch/args/nn.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/autocast_hook.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/autograd.h"
#include "ember/generator.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/nn.h"
#include "ember/ops/reduce.h"
#include "ember/ops/views.h"
#include "ops/nn_checks.h"

namespace ember {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// t as the kernels read it: rows of unit stride, a row stride of at least a row
// (views such as MultiheadAttention's heads pass as they are), else a copy.
Tensor dense_rows(const Tensor& t) {
  const bool unit = t.size(-1) <= 1 || t.stride(-1) == 1;
  const bool rows = t.size(-2) <= 1 || t.stride(-2) >= t.size(-1);
  return unit && rows ? t : t.contiguous();
}

DimVector lead_of(const Tensor& t) { return DimVector(t.sizes().begin(), t.sizes().end() - 2); }

int64_t numel_of(const DimVector& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

}  // namespace

bool sdpa_flash_applies(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, int64_t groups) {
  if (dispatch_state().tracing || autocast_active()) return false;
  if (!q.is_cpu() || !k.is_cpu() || !v.is_cpu() || (mask.defined() && !mask.is_cpu())) return false;
  if (!is_floating(q.dtype())) return false;
  if (q.dim() < 2 || k.dim() != q.dim() || v.dim() != q.dim()) return false;
  // Key and value must not broadcast against query (the composite's matmul does).
  DimVector kv_lead = lead_of(q);
  if (groups > 1) kv_lead.back() /= groups;
  if (lead_of(k) != kv_lead || lead_of(v) != kv_lead) return false;
  if (mask.defined()) {
    // A mask that takes a gradient (a learned bias) gets one through the composite.
    if (mask.requires_grad() && is_grad_enabled()) return false;
    DimVector scores = lead_of(q);
    scores.push_back(q.size(-2));
    scores.push_back(k.size(-2));
    // One that does not broadcast: the composite raises its error.
    if (!nn_checks::broadcasts_to(mask.sizes(), scores)) return false;
  }
  return true;
}

std::tuple<Tensor, Tensor> sdpa_flash(const Tensor& query, const Tensor& key, const Tensor& value,
                                      const Tensor& attn_mask, double dropout_p, bool is_causal, double scale,
                                      int64_t groups) {
  Tensor mask = attn_mask;
  if (mask.defined() && mask.dtype() != kBool && mask.dtype() != query.dtype()) mask = mask.to(query.dtype());
  ScaledDotProductFlashAttentionArgs args{.dropout_p = dropout_p, .is_causal = is_causal, .scale = scale,
                                          .groups = groups};
  if (dropout_p > 0.0) {
    const uint64_t n = attention_dropout::counters(numel_of(lead_of(query)), query.size(-2), key.size(-2));
    const PhiloxState stream = default_generator().reserve(n);
    args.seed = static_cast<int64_t>(stream.seed);
    args.offset = static_cast<int64_t>(stream.offset);
  }
  OpCall call(opid::scaled_dot_product_flash_attention,
              SmallVector<Tensor, 4>{dense_rows(query), dense_rows(key), dense_rows(value), mask}, args.attrs());
  dispatch(call);
  return {call.outputs[0], call.outputs[1]};
}

std::tuple<Tensor, Tensor, Tensor> sdpa_flash_backward(const Tensor& grad_out, const Tensor& query,
                                                       const Tensor& key, const Tensor& value,
                                                       const Tensor& attn_mask, const Tensor& output,
                                                       const Tensor& logsumexp, double dropout_p, bool is_causal,
                                                       double scale, int64_t groups, int64_t seed, int64_t offset) {
  const char* op = "scaled_dot_product_flash_attention_backward";
  nn_checks::check_defined(grad_out, op, "grad_out");
  EMBER_CHECK(grad_out.sizes() == output.sizes() && grad_out.dtype() == output.dtype(), op,
              ": expected grad_out of shape ", shape_str(output.sizes()), " and dtype ",
              dtype_name(output.dtype()), ", got ", shape_str(grad_out.sizes()), " ", dtype_name(grad_out.dtype()));
  ScaledDotProductFlashAttentionBackwardArgs args{.dropout_p = dropout_p, .is_causal = is_causal,
                                                  .scale = scale, .groups = groups, .seed = seed,
                                                  .offset = offset};
  OpCall call(opid::scaled_dot_product_flash_attention_backward,
              SmallVector<Tensor, 4>{grad_out.contiguous(), dense_rows(query), dense_rows(key), dense_rows(value),
                                     attn_mask, output.contiguous(), logsumexp.contiguous()},
              args.attrs());
  dispatch(call);
  return {call.outputs[0], call.outputs[1], call.outputs[2]};
}

// A plain loop on the host, not a kernel: only the create_graph gradient asks for it,
// and only on the CPU (the fused op has no other kernel).
Tensor sdpa_flash_dropout_factors(const DimVector& scores_shape, DType dtype, double dropout_p, int64_t seed,
                                  int64_t offset) {
  Tensor f = empty(scores_shape, TensorOptions(kFloat64));
  const int64_t S = scores_shape.back(), L = scores_shape[scores_shape.size() - 2];
  const int64_t BH = numel_of(scores_shape) / std::max<int64_t>(L * S, 1);
  const uint64_t threshold = philox_sample::dropout_threshold(dropout_p);
  const double keep_scale = dropout_p < 1.0 ? 1.0 / (1.0 - dropout_p) : 0.0;
  double* p = static_cast<double*>(f.data_ptr());
  for (int64_t bh = 0; bh < BH; ++bh)
    for (int64_t i = 0; i < L; ++i)
      attention_dropout::row_keep(p + (bh * L + i) * S, S, static_cast<uint64_t>(seed),
                                  static_cast<uint64_t>(offset), bh, i, 0, L, S, threshold, keep_scale);
  return f.to(dtype);
}

// softmax over the last dim, except that a row whose every score is -inf (a query with
// every key masked) gives zeros rather than NaN (torch's _safe_softmax). Softmax runs on
// finite scores for such rows, so their gradient is zero, not NaN.
Tensor sdpa_safe_softmax(const Tensor& scores) {
  if (scores.size(-1) == 0) return softmax(scores, -1);  // no keys: nothing to mask (amax needs one)
  Tensor dead = eq(amax(scores.detach(), -1, true), Scalar(kNegInf));
  return where(dead, Scalar(0.0), softmax(where(dead, Scalar(0.0), scores), -1));
}

// enable_gqa: each of key's H_kv heads (dim -3) serves H_q / H_kv query heads.
Tensor sdpa_repeat_heads(const Tensor& t, int64_t groups) {
  if (groups == 1) return t;
  DimVector shape = t.sizes();
  shape.insert(shape.end() - 2, groups);  // [..., H_kv, groups, S, E]
  return t.unsqueeze(-3).expand(IntList(shape.begin(), shape.end())).flatten(-4, -3);
}

}  // namespace ember
