// Attention as functions (torch.nn.functional.scaled_dot_product_attention and
// multi_head_attention_forward): composites of ember ops, so autograd differentiates
// them and any device with those ops runs them.
#pragma once
#include <optional>
#include <tuple>

#include "ember/error.h"
#include "ember/tensor.h"

namespace ember {

// softmax(q k^T * scale + mask) v over the last two dims: query [..., L, E], key
// [..., S, E], value [..., S, Ev] -> [..., L, Ev]; batch dims broadcast.
// attn_mask broadcasts to [..., L, S]: bool (true = may attend) or floating (added to
// the scores). is_causal: query i attends to keys 0..i (no attn_mask then). scale
// defaults to 1 / sqrt(E). dropout_p > 0 drops attention weights (always, as torch).
// A query whose every key is masked gets zeros, as PyTorch's math backend.
// enable_gqa: key and value may have fewer heads (dim -3) than query, each shared by
// H_q / H_kv query heads.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = {}, double dropout_p = 0.0,
                                    bool is_causal = false, std::optional<double> scale = std::nullopt,
                                    bool enable_gqa = false);

// The arguments of multi_head_attention_forward beyond query, key and value, with
// torch::nn::functional::MultiheadAttentionForwardFuncOptions' names: the constructor
// takes the required ones; the others have setters that chain (opts.training(false)).
// Undefined tensors stand for None.
struct MultiheadAttentionForwardFuncOptions {
  MultiheadAttentionForwardFuncOptions(int64_t embed_dim_to_check, int64_t num_heads,
                                       Tensor in_proj_weight, Tensor in_proj_bias, Tensor bias_k,
                                       Tensor bias_v, bool add_zero_attn, double dropout_p,
                                       Tensor out_proj_weight, Tensor out_proj_bias);

#define EMBER_MHA_ARG(T, name, init)                                                       \
  MultiheadAttentionForwardFuncOptions& name(const T& value) { name##_ = value; return *this; } \
  const T& name() const { return name##_; }                                                \
  T name##_ = init;
  EMBER_MHA_ARG(int64_t, embed_dim_to_check, 0)
  EMBER_MHA_ARG(int64_t, num_heads, 0)
  EMBER_MHA_ARG(Tensor, in_proj_weight, {})
  EMBER_MHA_ARG(Tensor, in_proj_bias, {})
  EMBER_MHA_ARG(Tensor, bias_k, {})
  EMBER_MHA_ARG(Tensor, bias_v, {})
  EMBER_MHA_ARG(bool, add_zero_attn, false)
  EMBER_MHA_ARG(double, dropout_p, 0.0)
  EMBER_MHA_ARG(Tensor, out_proj_weight, {})
  EMBER_MHA_ARG(Tensor, out_proj_bias, {})
  EMBER_MHA_ARG(bool, training, true)
  EMBER_MHA_ARG(Tensor, key_padding_mask, {})
  EMBER_MHA_ARG(bool, need_weights, true)
  EMBER_MHA_ARG(Tensor, attn_mask, {})
  EMBER_MHA_ARG(bool, use_separate_proj_weight, false)
  EMBER_MHA_ARG(Tensor, q_proj_weight, {})
  EMBER_MHA_ARG(Tensor, k_proj_weight, {})
  EMBER_MHA_ARG(Tensor, v_proj_weight, {})
  EMBER_MHA_ARG(Tensor, static_k, {})
  EMBER_MHA_ARG(Tensor, static_v, {})
  EMBER_MHA_ARG(bool, average_attn_weights, true)
  EMBER_MHA_ARG(bool, is_causal, false)
#undef EMBER_MHA_ARG
};

// nn.MultiheadAttention's computation, sequence first: query [L, N, E] (or unbatched
// [L, E]), key [S, N, E_k], value [S, N, E_v]. Returns (attn_output [L, N, E],
// attn_weights): the weights only when need_weights (else undefined), [N, L, S]
// averaged over heads or [N, num_heads, L, S]; unbatched calls drop N.
// key_padding_mask [N, S] (true / -inf = ignore that key), attn_mask [L, S] or
// [N * num_heads, L, S] (bool: true = may NOT attend, unlike scaled_dot_product_attention,
// as PyTorch). Bad shapes raise AssertionError / Error with PyTorch's messages.
std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value,
    const MultiheadAttentionForwardFuncOptions& options);

// The common case in one call: packed in-projection, no bias_k / bias_v / zero attention.
std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value, int64_t embed_dim,
    int64_t num_heads, const Tensor& in_proj_weight, const Tensor& in_proj_bias,
    const Tensor& out_proj_weight, const Tensor& out_proj_bias, const Tensor& key_padding_mask = {},
    bool need_weights = true, const Tensor& attn_mask = {}, bool average_attn_weights = true,
    double dropout_p = 0.0, bool training = true);

}  // namespace ember
