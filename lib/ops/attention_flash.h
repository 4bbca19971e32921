// The fused attention op (scaled_dot_product_flash_attention, CPU kernels in
// lib/cpu/attention_flash*.cpp) as scaled_dot_product_attention (attention.cpp) and
// its derivative (lib/autograd/derivatives/attention.cpp) reach it. Internal: users
// call scaled_dot_product_attention, which takes the fused op where it applies.
#pragma once
#include <cstdint>
#include <tuple>

#include "ember/tensor.h"

namespace ember {

// Whether the fused op computes this (already checked) call: CPU floating operands
// (float16 / bfloat16 computed in float32 by the caller) with the same leading dims (key and value's heads divided by groups),
// no trace being recorded (a trace keeps the composite's ops, which every device
// and exporter knows), no autocast region, a mask that needs no gradient.
bool sdpa_flash_applies(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& attn_mask,
                        int64_t groups);

// The fused forward: (output, logsumexp). mask: bool (true = may attend), or of
// query's dtype (added), broadcastable to [lead..., L, S]. Draws dropout's stream
// from the default CPU generator when dropout_p > 0.
std::tuple<Tensor, Tensor> sdpa_flash(const Tensor& query, const Tensor& key, const Tensor& value,
                                      const Tensor& attn_mask, double dropout_p, bool is_causal, double scale,
                                      int64_t groups);

// The fused backward: (grad_query, grad_key, grad_value).
std::tuple<Tensor, Tensor, Tensor> sdpa_flash_backward(const Tensor& grad_out, const Tensor& query,
                                                       const Tensor& key, const Tensor& value,
                                                       const Tensor& attn_mask, const Tensor& output,
                                                       const Tensor& logsumexp, double dropout_p, bool is_causal,
                                                       double scale, int64_t groups, int64_t seed, int64_t offset);

// The dropout factors (0 or 1 / (1 - p)) the fused op applied to the [BH, L, S]
// weights of a call with this seed and offset, as a tensor of dtype [lead..., L, S]
// (for the composite gradient under create_graph).
Tensor sdpa_flash_dropout_factors(const DimVector& scores_shape, DType dtype, double dropout_p, int64_t seed,
                                  int64_t offset);

// Pieces of the composite that its gradient under create_graph reuses.
Tensor sdpa_safe_softmax(const Tensor& scores);
Tensor sdpa_repeat_heads(const Tensor& t, int64_t groups);

}  // namespace ember
