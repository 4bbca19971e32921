// MultiheadAttention and TransformerEncoderLayer (torch::nn's names, options,
// parameters and initialization); the computation is ember::multi_head_attention_forward
// (ember/ops/attention.h).
#pragma once
#include <optional>
#include <string>
#include <tuple>

#include "ember/arg.h"
#include "ember/nn/module.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/normalization.h"

namespace ember::nn {

struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads) {}
  EMBER_ARG(int64_t, embed_dim);
  EMBER_ARG(int64_t, num_heads);
  // Dropout on the attention weights, in training.
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bias) = true;
  // bias_k, bias_v [1, 1, E] appended to the keys and values.
  EMBER_ARG(bool, add_bias_kv) = false;
  // A zero key and value appended to the sequence.
  EMBER_ARG(bool, add_zero_attn) = false;
  // Features of key and value (embed_dim when unset); other than embed_dim they
  // give separate q/k/v_proj_weight instead of the packed in_proj_weight.
  EMBER_ARG(std::optional<int64_t>, kdim) = std::nullopt;
  EMBER_ARG(std::optional<int64_t>, vdim) = std::nullopt;
  // Inputs and output [N, L, E] instead of [L, N, E] (Python's option).
  EMBER_ARG(bool, batch_first) = false;

 private:
  MultiheadAttentionOptions& derived() { return *this; }
};

// Parameters as torch's: in_proj_weight [3E, E] (or q/k/v_proj_weight [E, E|kdim|vdim]),
// in_proj_bias [3E], bias_k / bias_v, and out_proj (a Linear). Projections
// xavier-uniform, biases zero, bias_k / bias_v xavier-normal.
class MultiheadAttentionImpl : public Module {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // query [L, N, E] (or unbatched [L, E]), key [S, N, kdim], value [S, N, vdim].
  // Bool masks: true = may not attend; float masks are added to the scores.
  // Returns (output [L, N, E], weights [N, L, S] averaged over heads or
  // [N, num_heads, L, S]; undefined when !need_weights).
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {}, bool need_weights = true,
                                     const Tensor& attn_mask = {}, bool average_attn_weights = true);

  MultiheadAttentionOptions options;
  int64_t kdim, vdim, head_dim;
  bool qkv_same_embed_dim;
  Tensor in_proj_weight, in_proj_bias, q_proj_weight, k_proj_weight, v_proj_weight, bias_k, bias_v;
  Linear out_proj{nullptr};
};
EMBER_MODULE(MultiheadAttention);

struct TransformerEncoderLayerOptions {
  TransformerEncoderLayerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  EMBER_ARG(int64_t, d_model);
  EMBER_ARG(int64_t, nhead);
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  // "relu" or "gelu".
  EMBER_ARG(std::string, activation) = "relu";
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  EMBER_ARG(bool, batch_first) = false;
  // LayerNorm before attention and feed-forward instead of after.
  EMBER_ARG(bool, norm_first) = false;

 private:
  TransformerEncoderLayerOptions& derived() { return *this; }
};

// Self-attention then a feed-forward block (linear1, activation, dropout, linear2), each
// with a residual connection and a LayerNorm; submodules named as torch's.
class TransformerEncoderLayerImpl : public Module {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  explicit TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options);
  void pretty_print(std::ostream& stream) const override;
  // src [S, N, E] ([N, S, E] batch_first, or unbatched [S, E]).
  Tensor forward(const Tensor& src, const Tensor& src_mask = {}, const Tensor& src_key_padding_mask = {});

  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn{nullptr};
  Linear linear1{nullptr}, linear2{nullptr};
  Dropout dropout{nullptr}, dropout1{nullptr}, dropout2{nullptr};
  LayerNorm norm1{nullptr}, norm2{nullptr};

 private:
  Tensor self_attention_block(const Tensor& x, const Tensor& mask, const Tensor& key_padding_mask);
  Tensor feed_forward_block(const Tensor& x);
};
EMBER_MODULE(TransformerEncoderLayer);

}  // namespace ember::nn
