#include "ember/nn/modules/transformer.h"

#include "ember/nn/init.h"
#include "ember/ops/attention.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"

namespace ember::nn {

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options_)
    : options(options_) {
  const int64_t E = options.embed_dim(), heads = options.num_heads();
  EMBER_CHECK_VALUE(E > 0 && heads > 0, "embed_dim and num_heads must be greater than 0, got embed_dim=", E,
                    " and num_heads=", heads, " instead");
  EMBER_CHECK_AS(AssertionError, E % heads == 0, "embed_dim must be divisible by num_heads");
  kdim = options.kdim().value_or(E);
  vdim = options.vdim().value_or(E);
  head_dim = E / heads;
  qkv_same_embed_dim = kdim == E && vdim == E;
  // Python's registration order, so that state_dict keys come in the same order.
  if (qkv_same_embed_dim) {
    in_proj_weight = register_parameter("in_proj_weight", empty({3 * E, E}));
  } else {
    q_proj_weight = register_parameter("q_proj_weight", empty({E, E}));
    k_proj_weight = register_parameter("k_proj_weight", empty({E, kdim}));
    v_proj_weight = register_parameter("v_proj_weight", empty({E, vdim}));
  }
  in_proj_bias = register_parameter("in_proj_bias", options.bias() ? empty({3 * E}) : Tensor(), options.bias());
  out_proj = register_module("out_proj", Linear(LinearOptions(E, E).bias(options.bias())));
  if (options.add_bias_kv()) {
    bias_k = register_parameter("bias_k", empty({1, 1, E}));
    bias_v = register_parameter("bias_v", empty({1, 1, E}));
  }
  reset_parameters();
}

// torch's: xavier-uniform projections, zero biases; out_proj.weight keeps Linear's init.
void MultiheadAttentionImpl::reset_parameters() {
  for (Tensor* w : {&in_proj_weight, &q_proj_weight, &k_proj_weight, &v_proj_weight})
    if (w->defined()) init::xavier_uniform_(*w);
  if (in_proj_bias.defined()) {
    init::constant_(in_proj_bias, 0.0);
    init::constant_(out_proj->bias, 0.0);
  }
  if (bias_k.defined()) init::xavier_normal_(bias_k);
  if (bias_v.defined()) init::xavier_normal_(bias_v);
}

void MultiheadAttentionImpl::pretty_print(std::ostream& stream) const { stream << "MultiheadAttention"; }

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(const Tensor& query, const Tensor& key,
                                                           const Tensor& value, const Tensor& key_padding_mask,
                                                           bool need_weights, const Tensor& attn_mask,
                                                           bool average_attn_weights) {
  bool to_seq_first = options.batch_first() && query.dim() == 3;
  auto seq_first = [&](const Tensor& t) { return to_seq_first ? t.transpose(0, 1) : t; };
  MultiheadAttentionForwardFuncOptions f(options.embed_dim(), options.num_heads(), in_proj_weight, in_proj_bias,
                                         bias_k, bias_v, options.add_zero_attn(), options.dropout(),
                                         out_proj->weight, out_proj->bias);
  f.training(is_training())
      .key_padding_mask(key_padding_mask)
      .need_weights(need_weights)
      .attn_mask(attn_mask)
      .average_attn_weights(average_attn_weights);
  if (!qkv_same_embed_dim)
    f.use_separate_proj_weight(true).q_proj_weight(q_proj_weight).k_proj_weight(k_proj_weight).v_proj_weight(
        v_proj_weight);
  auto [output, weights] = multi_head_attention_forward(seq_first(query), seq_first(key), seq_first(value), f);
  return {seq_first(output), weights};
}

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options_)
    : options(options_) {
  EMBER_CHECK(options.activation() == "relu" || options.activation() == "gelu", "activation should be relu/gelu, not ",
              options.activation());
  const int64_t d = options.d_model();
  self_attn = register_module(
      "self_attn", MultiheadAttention(MultiheadAttentionOptions(d, options.nhead())
                                          .dropout(options.dropout())
                                          .batch_first(options.batch_first())));
  linear1 = register_module("linear1", Linear(d, options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", Linear(options.dim_feedforward(), d));
  norm1 = register_module("norm1", LayerNorm(LayerNormOptions({d}).eps(options.layer_norm_eps())));
  norm2 = register_module("norm2", LayerNorm(LayerNormOptions({d}).eps(options.layer_norm_eps())));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
}

void TransformerEncoderLayerImpl::pretty_print(std::ostream& stream) const { stream << "TransformerEncoderLayer"; }

Tensor TransformerEncoderLayerImpl::self_attention_block(const Tensor& x, const Tensor& mask,
                                                         const Tensor& key_padding_mask) {
  Tensor out = std::get<0>(self_attn(x, x, x, key_padding_mask, /*need_weights=*/false, mask));
  return dropout1(out);
}

Tensor TransformerEncoderLayerImpl::feed_forward_block(const Tensor& x) {
  Tensor h = linear1(x);
  h = options.activation() == "relu" ? relu(h) : gelu(h);
  return dropout2(linear2(dropout(h)));
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask) {
  Tensor x = src;
  if (options.norm_first()) {
    x = x + self_attention_block(norm1(x), src_mask, src_key_padding_mask);
    return x + feed_forward_block(norm2(x));
  }
  x = norm1(x + self_attention_block(x, src_mask, src_key_padding_mask));
  return norm2(x + feed_forward_block(x));
}

}  // namespace ember::nn
