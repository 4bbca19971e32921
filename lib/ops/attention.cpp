// Attention: scaled_dot_product_attention as PyTorch's math backend computes it (a
// composite of ember ops; on the CPU the fused op of ops/attention_flash.h instead
// where it applies), and multi_head_attention_forward step by step as
// torch.nn.functional's (same checks, messages and exception kinds).
#include "ember/ops/attention.h"

#include <cmath>
#include <limits>

#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "ember/ops/nn.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"
#include "ops/attention_flash.h"
#include "ops/nn_checks.h"

namespace ember {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

void check_sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, double dropout_p,
                bool is_causal, bool enable_gqa) {
  const char* op = "scaled_dot_product_attention";
  EMBER_CHECK(q.defined() && k.defined() && v.defined(), op, ": query, key and value must be defined");
  EMBER_CHECK(q.dim() >= 2 && k.dim() >= 2 && v.dim() >= 2, op, ": Expected query, key, and value to "
              "all be at least 2 dimensional, but got query.dim: ", q.dim(), " key.dim: ", k.dim(),
              " and value.dim: ", v.dim(), " instead.");
  EMBER_CHECK(q.dtype() == k.dtype() && q.dtype() == v.dtype(), op, ": Expected query, key, and value "
              "to have the same dtype, but got query.dtype: ", dtype_name(q.dtype()), " key.dtype: ",
              dtype_name(k.dtype()), " and value.dtype: ", dtype_name(v.dtype()), " instead.");
  EMBER_CHECK(q.is_floating_point(), op, ": expected floating point query, key and value, got ",
              dtype_name(q.dtype()));
  EMBER_CHECK(k.size(-1) == q.size(-1), op, ": key's last dim (", k.size(-1),
              ") must equal query's (", q.size(-1), "); query ", shape_str(q.sizes()), ", key ",
              shape_str(k.sizes()));
  EMBER_CHECK(v.size(-2) == k.size(-2), op, ": value must have as many positions (dim -2) as key; key ",
              shape_str(k.sizes()), ", value ", shape_str(v.sizes()));
  EMBER_CHECK(!(is_causal && mask.defined()), op, ": Explicit attn_mask should not be set when "
              "is_causal=True");
  if (mask.defined())
    EMBER_CHECK(mask.dtype() == kBool || mask.is_floating_point(), op, ": Expected attn_mask dtype to "
                "be bool or float or to match query dtype, but got attn_mask.dtype: ",
                dtype_name(mask.dtype()), " and query.dtype: ", dtype_name(q.dtype()), " instead.");
  EMBER_CHECK(dropout_p >= 0.0 && dropout_p <= 1.0, op, ": dropout probability has to be between 0 "
              "and 1, but got ", dropout_p);
  if (enable_gqa) {
    EMBER_CHECK(q.dim() >= 3 && k.dim() >= 3 && v.dim() >= 3, op, ": enable_gqa needs a heads dim "
                "(dim -3) in query, key and value");
    EMBER_CHECK(k.size(-3) == v.size(-3) && k.size(-3) > 0 && q.size(-3) % k.size(-3) == 0, op,
                ": enable_gqa: the number of query heads (", q.size(-3), ") must be a multiple of the "
                "number of key/value heads (", k.size(-3), ", ", v.size(-3), ")");
  }
}

// ---- multi_head_attention_forward's pieces (torch.nn.functional's helpers) ----------------

const char* const kMha = "multi_head_attention_forward";

// _mha_shape_check: whether the call is batched; AssertionError on bad ranks.
bool mha_is_batched(const Tensor& query, const Tensor& key, const Tensor& value,
                    const Tensor& key_padding_mask, const Tensor& attn_mask, int64_t num_heads) {
  const int64_t qd = query.dim();
  EMBER_CHECK_AS(AssertionError, qd == 2 || qd == 3, "query should be unbatched 2D or batched 3D "
                 "tensor but received ", qd, "-D query tensor");
  const bool batched = qd == 3;
  const char* kind = batched ? "batched (3-D)" : "unbatched (2-D)";
  EMBER_CHECK_AS(AssertionError, key.dim() == qd && value.dim() == qd, "For ", kind, " `query`, "
                 "expected `key` and `value` to be ", qd, "-D but found ", key.dim(), "-D and ",
                 value.dim(), "-D tensors respectively");
  if (key_padding_mask.defined())
    EMBER_CHECK_AS(AssertionError, key_padding_mask.dim() == qd - 1, "For ", kind, " `query`, "
                   "expected `key_padding_mask` to be `None` or ", qd - 1, "-D but found ",
                   key_padding_mask.dim(), "-D tensor instead");
  if (attn_mask.defined()) {
    EMBER_CHECK_AS(AssertionError, attn_mask.dim() == 2 || attn_mask.dim() == 3, "For ", kind,
                   " `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found ",
                   attn_mask.dim(), "-D tensor instead");
    if (!batched && attn_mask.dim() == 3) {
      DimVector expected{num_heads, query.size(0), key.size(0)};
      EMBER_CHECK_AS(AssertionError, attn_mask.sizes() == expected, "Expected `attn_mask` shape to be ",
                     shape_str(expected), " but got ", shape_str(attn_mask.sizes()));
    }
  }
  return batched;
}

// _canonical_mask: a bool mask becomes a float one (-inf where true) of the query's dtype.
Tensor canonical_mask(const Tensor& mask, const char* name, DType target) {
  if (!mask.defined()) return mask;
  EMBER_CHECK_AS(AssertionError, mask.dtype() == kBool || mask.is_floating_point(),
                 "only bool and floating types of ", name, " are supported");
  if (mask.is_floating_point()) return mask;
  return masked_fill(zeros(IntList(mask.sizes().begin(), mask.sizes().end()),
                           TensorOptions().dtype(target).device(mask.device())),
                     mask, Scalar(kNegInf));
}

void check_shape(const Tensor& t, const DimVector& expected, const char* what) {
  EMBER_CHECK_AS(AssertionError, t.sizes() == expected, "expecting ", what, " shape of ",
                 shape_str(expected), ", but got ", shape_str(t.sizes()));
}

// q, k, v projected to embed_dim (_in_projection_packed / _in_projection).
TensorList in_projection(const Tensor& query, const Tensor& key, const Tensor& value,
                         const MultiheadAttentionForwardFuncOptions& o) {
  const int64_t E = query.size(-1);
  if (o.in_proj_bias().defined())
    EMBER_CHECK(o.in_proj_bias().dim() == 1 && o.in_proj_bias().size(0) == 3 * E, kMha,
                ": in_proj_bias must have shape [3 * embed_dim] = [", 3 * E, "], got ",
                shape_str(o.in_proj_bias().sizes()));
  TensorList b = o.in_proj_bias().defined() ? chunk(o.in_proj_bias(), 3) : TensorList(3);
  if (!o.use_separate_proj_weight()) {
    const Tensor& w = o.in_proj_weight();
    EMBER_CHECK_AS(AssertionError, w.defined(), "use_separate_proj_weight is False but in_proj_weight "
                   "is None");
    EMBER_CHECK(w.dim() == 2 && w.size(0) == 3 * E && w.size(1) == E, kMha, ": in_proj_weight must "
                "have shape [3 * embed_dim, embed_dim] = [", 3 * E, ", ", E, "], got ",
                shape_str(w.sizes()));
    // Self-attention: one matmul for all three projections.
    if (query.is_same(key) && key.is_same(value)) return chunk(linear(query, w, o.in_proj_bias()), 3, -1);
    TensorList ws = chunk(w, 3);
    return {linear(query, ws[0], b[0]), linear(key, ws[1], b[1]), linear(value, ws[2], b[2])};
  }
  const Tensor* ws[3] = {&o.q_proj_weight(), &o.k_proj_weight(), &o.v_proj_weight()};
  const char* names[3] = {"q_proj_weight", "k_proj_weight", "v_proj_weight"};
  const char* roles[3] = {"query weights", "key weights", "value weights"};
  const Tensor* xs[3] = {&query, &key, &value};
  for (int i = 0; i < 3; ++i) {
    EMBER_CHECK_AS(AssertionError, ws[i]->defined(), "use_separate_proj_weight is True but ", names[i],
                   " is None");
    check_shape(*ws[i], {E, xs[i]->size(-1)}, roles[i]);
  }
  return {linear(query, *ws[0], b[0]), linear(key, *ws[1], b[1]), linear(value, *ws[2], b[2])};
}

// [len, bsz, E] -> [bsz * heads, len, head_dim], or the static one given instead.
Tensor split_heads(const Tensor& x, const Tensor& fixed, int64_t bsz, int64_t heads, int64_t head_dim,
                   const char* fixed_name) {
  if (!fixed.defined()) return x.reshape({x.size(0), bsz * heads, head_dim}).transpose(0, 1);
  EMBER_CHECK_AS(AssertionError, fixed.dim() == 3, "expecting ", fixed_name, " to be 3-D, got ",
                 fixed.dim(), "-D");
  EMBER_CHECK_AS(AssertionError, fixed.size(0) == bsz * heads, "expecting ", fixed_name,
                 ".size(0) of ", bsz * heads, ", but got ", fixed.size(0));
  EMBER_CHECK_AS(AssertionError, fixed.size(2) == head_dim, "expecting ", fixed_name, ".size(2) of ",
                 head_dim, ", but got ", fixed.size(2));
  return fixed;
}

Tensor pad_last(const Tensor& t) { return t.defined() ? pad(t, {0, 1}) : t; }

// attn_mask made 3-D ([1 or bsz * heads, L, S]) after checking its shape.
Tensor mask_3d(const Tensor& mask, int64_t L, int64_t S, int64_t bsz_heads) {
  if (!mask.defined()) return mask;
  if (mask.dim() == 2) {
    EMBER_CHECK(mask.size(0) == L && mask.size(1) == S, kMha, ": The shape of the 2D attn_mask is ",
                shape_str(mask.sizes()), ", but should be (", L, ", ", S, ").");
    return mask.unsqueeze(0);
  }
  EMBER_CHECK(mask.dim() == 3, kMha, ": attn_mask's dimension ", mask.dim(), " is not supported");
  EMBER_CHECK(mask.size(0) == bsz_heads && mask.size(1) == L && mask.size(2) == S, kMha,
              ": The shape of the 3D attn_mask is ", shape_str(mask.sizes()), ", but should be (",
              bsz_heads, ", ", L, ", ", S, ").");
  return mask;
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale, bool enable_gqa) {
  check_sdpa(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa);
  const int64_t L = query.size(-2), S = key.size(-2);
  const double s = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(query.size(-1)));
  const int64_t groups = enable_gqa ? query.size(-3) / key.size(-3) : 1;
  // On the CPU one fused kernel (ops/attention_flash.h says when); the composite below
  // is the path for the rest, and what the fused op's create_graph gradient follows.
  if (sdpa_flash_applies(query, key, value, attn_mask, groups)) {
    if (query.dtype() == kFloat32 || query.dtype() == kFloat64)
      return std::get<0>(sdpa_flash(query, key, value, attn_mask, dropout_p, is_causal, s, groups));
    // float16 / bfloat16: computed in float32 (as torch's CPU kernels do), rounded once.
    auto wide = [](const Tensor& t) { return t.to(kFloat32); };
    return std::get<0>(sdpa_flash(wide(query), wide(key), wide(value), attn_mask, dropout_p, is_causal, s, groups))
        .to(query.dtype());
  }
  const Tensor k = sdpa_repeat_heads(key, groups), v = sdpa_repeat_heads(value, groups);
  // Scaling q ([L, E]) is cheaper than scaling the scores ([L, S]) when E < S.
  Tensor scores = matmul(query * Scalar(s), k.transpose(-2, -1));
  Tensor mask = attn_mask;
  if (is_causal) mask = tril(ones({L, S}, TensorOptions().dtype(kBool).device(query.device())));
  Tensor weights;
  if (!mask.defined()) {
    weights = softmax(scores, -1);
  } else {
    EMBER_CHECK(nn_checks::broadcasts_to(mask.sizes(), scores.sizes()),
                "scaled_dot_product_attention: attn_mask of shape ", shape_str(mask.sizes()),
                " does not broadcast to the attention scores' shape ", shape_str(scores.sizes()));
    scores = mask.dtype() == kBool ? where(mask, scores, Scalar(kNegInf))
                                   : scores + mask.to(scores.dtype());
    // A causal mask never hides a whole row (key 0 is always visible): plain softmax.
    weights = is_causal ? softmax(scores, -1) : sdpa_safe_softmax(scores);
  }
  if (dropout_p > 0.0) weights = dropout(weights, dropout_p, true);
  return matmul(weights, v);
}

MultiheadAttentionForwardFuncOptions::MultiheadAttentionForwardFuncOptions(
    int64_t embed_dim_to_check, int64_t num_heads, Tensor in_proj_weight, Tensor in_proj_bias,
    Tensor bias_k, Tensor bias_v, bool add_zero_attn, double dropout_p, Tensor out_proj_weight,
    Tensor out_proj_bias)
    : embed_dim_to_check_(embed_dim_to_check),
      num_heads_(num_heads),
      in_proj_weight_(std::move(in_proj_weight)),
      in_proj_bias_(std::move(in_proj_bias)),
      bias_k_(std::move(bias_k)),
      bias_v_(std::move(bias_v)),
      add_zero_attn_(add_zero_attn),
      dropout_p_(dropout_p),
      out_proj_weight_(std::move(out_proj_weight)),
      out_proj_bias_(std::move(out_proj_bias)) {}

std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query_in, const Tensor& key_in, const Tensor& value_in,
    const MultiheadAttentionForwardFuncOptions& o) {
  EMBER_CHECK(query_in.defined() && key_in.defined() && value_in.defined(), kMha,
              ": query, key and value must be defined");
  const int64_t heads = o.num_heads();
  EMBER_CHECK_VALUE(heads > 0, kMha, ": num_heads must be positive, got ", heads);
  const bool batched = mha_is_batched(query_in, key_in, value_in, o.key_padding_mask(), o.attn_mask(),
                                      heads);
  // Unbatched calls run as a batch of one (dim 1), squeezed at the end.
  auto batch = [&](const Tensor& t) { return batched ? t : t.unsqueeze(1); };
  const Tensor query = batch(query_in);
  const Tensor key = query_in.is_same(key_in) ? query : batch(key_in);
  const Tensor value = key_in.is_same(value_in) ? key : batch(value_in);
  Tensor kpm = o.key_padding_mask();
  if (kpm.defined() && !batched) kpm = kpm.unsqueeze(0);
  const int64_t L = query.size(0), bsz = query.size(1), E = query.size(2);

  kpm = canonical_mask(kpm, "key_padding_mask", query.dtype());
  bool is_causal = o.is_causal();
  EMBER_CHECK(!is_causal || o.attn_mask().defined(), kMha, ": Need attn_mask if specifying the "
              "is_causal hint. You may use the Transformer module method "
              "`generate_square_subsequent_mask` to create this mask.");
  Tensor attn_mask;
  // The is_causal hint replaces attn_mask only where scaled_dot_product_attention runs
  // without a key padding mask (torch's rule).
  if (!(is_causal && !kpm.defined() && !o.need_weights())) {
    attn_mask = canonical_mask(o.attn_mask(), "attn_mask", query.dtype());
    if (kpm.defined()) is_causal = false;
  }
  EMBER_CHECK_AS(AssertionError, E == o.embed_dim_to_check(), "was expecting embedding dimension of ",
                 o.embed_dim_to_check(), ", but got ", E);
  const int64_t head_dim = E / heads;
  EMBER_CHECK_AS(AssertionError, head_dim * heads == E, "embed_dim ", E, " not divisible by num_heads ",
                 heads);
  if (o.use_separate_proj_weight())
    EMBER_CHECK_AS(AssertionError, key.size(0) == value.size(0) && key.size(1) == value.size(1),
                   "key's sequence and batch dims ", shape_str({key.size(0), key.size(1)}),
                   " do not match value's ", shape_str({value.size(0), value.size(1)}));
  else
    EMBER_CHECK_AS(AssertionError, key.sizes() == value.sizes(), "key shape ", shape_str(key.sizes()),
                   " does not match value shape ", shape_str(value.sizes()));

  TensorList qkv = in_projection(query, key, value, o);
  Tensor k = qkv[1], v = qkv[2];
  attn_mask = mask_3d(attn_mask, L, key.size(0), bsz * heads);

  // bias_k / bias_v: one more key and value position, learned.
  EMBER_CHECK_AS(AssertionError, o.bias_k().defined() || !o.bias_v().defined(),
                 "bias_v is set but bias_k is None");
  EMBER_CHECK_AS(AssertionError, o.bias_v().defined() || !o.bias_k().defined(),
                 "bias_k is set but bias_v is None");
  if (o.bias_k().defined()) {
    EMBER_CHECK_AS(AssertionError, !o.static_k().defined(), "bias cannot be added to static key.");
    EMBER_CHECK_AS(AssertionError, !o.static_v().defined(), "bias cannot be added to static value.");
    check_shape(o.bias_k(), {1, 1, E}, "bias_k");
    check_shape(o.bias_v(), {1, 1, E}, "bias_v");
    k = cat({k, o.bias_k().repeat({1, bsz, 1})});
    v = cat({v, o.bias_v().repeat({1, bsz, 1})});
    attn_mask = pad_last(attn_mask);
    kpm = pad_last(kpm);
  }
  Tensor q = qkv[0].reshape({L, bsz * heads, head_dim}).transpose(0, 1);
  k = split_heads(k, o.static_k(), bsz, heads, head_dim, "static_k");
  v = split_heads(v, o.static_v(), bsz, heads, head_dim, "static_v");
  if (o.add_zero_attn()) {
    const TensorOptions zeros_like_k = TensorOptions().dtype(k.dtype()).device(k.device());
    k = cat({k, zeros({bsz * heads, 1, head_dim}, zeros_like_k)}, 1);
    v = cat({v, zeros({bsz * heads, 1, head_dim}, zeros_like_k)}, 1);
    attn_mask = pad_last(attn_mask);
    kpm = pad_last(kpm);
  }
  const int64_t S = k.size(1);
  if (kpm.defined()) {
    EMBER_CHECK_AS(AssertionError, kpm.size(0) == bsz, "Expected key_padded_mask.shape[0] to be ", bsz,
                   ", but got ", kpm.size(0));
    EMBER_CHECK_AS(AssertionError, kpm.size(1) == S, "Expected key_padded_mask.shape[1] to be ", S,
                   ", but got ", kpm.size(1));
    kpm = kpm.view({bsz, 1, 1, S}).expand({-1, heads, -1, -1}).reshape({bsz * heads, 1, S});
    attn_mask = attn_mask.defined() ? attn_mask + kpm : kpm;
  }
  const double dropout_p = o.training() ? o.dropout_p() : 0.0;

  Tensor out, weights;
  if (o.need_weights()) {
    // Plain softmax: a query with every key masked gives NaN here, as in PyTorch.
    Tensor scores = bmm(q * Scalar(std::sqrt(1.0 / static_cast<double>(head_dim))), k.transpose(1, 2));
    if (attn_mask.defined()) scores = scores + attn_mask;
    weights = softmax(scores, -1);
    if (dropout_p > 0.0) weights = dropout(weights, dropout_p, true);
    out = bmm(weights, v).transpose(0, 1).reshape({L * bsz, E});
    weights = weights.view({bsz, heads, L, S});
    if (o.average_attn_weights()) weights = mean(weights, IntList{1});
    if (!batched) weights = weights.squeeze(0);
  } else {
    if (attn_mask.defined())
      attn_mask = attn_mask.size(0) == 1 ? attn_mask.unsqueeze(0) : attn_mask.view({bsz, heads, -1, S});
    out = scaled_dot_product_attention(q.reshape({bsz, heads, L, head_dim}),
                                       k.reshape({bsz, heads, S, head_dim}),
                                       v.reshape({bsz, heads, S, head_dim}), attn_mask, dropout_p,
                                       is_causal);
    out = out.permute({2, 0, 1, 3}).reshape({bsz * L, E});
  }
  out = linear(out, o.out_proj_weight(), o.out_proj_bias());
  out = out.view({L, bsz, out.size(1)});
  if (!batched) out = out.squeeze(1);
  return {out, weights};
}

std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value, int64_t embed_dim,
    int64_t num_heads, const Tensor& in_proj_weight, const Tensor& in_proj_bias,
    const Tensor& out_proj_weight, const Tensor& out_proj_bias, const Tensor& key_padding_mask,
    bool need_weights, const Tensor& attn_mask, bool average_attn_weights, double dropout_p,
    bool training) {
  return multi_head_attention_forward(
      query, key, value,
      MultiheadAttentionForwardFuncOptions(embed_dim, num_heads, in_proj_weight, in_proj_bias, {}, {},
                                           false, dropout_p, out_proj_weight, out_proj_bias)
          .training(training)
          .key_padding_mask(key_padding_mask)
          .need_weights(need_weights)
          .attn_mask(attn_mask)
          .average_attn_weights(average_attn_weights));
}

}  // namespace ember
