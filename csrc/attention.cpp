// Python bindings of attention: ember._C.scaled_dot_product_attention and
// multi_head_attention_forward with torch.nn.functional's signatures
// (python/ember/nn/functional.py re-exports them).
#include "bindings.h"

namespace ember::python {

namespace {

using OptTensor = std::optional<Tensor>;

Tensor opt(const OptTensor& t) { return t.value_or(Tensor()); }

}  // namespace

void bind_attention(py::module_& m) {
  m.def("scaled_dot_product_attention", [](const Tensor& query, const Tensor& key, const Tensor& value,
                                           const OptTensor& attn_mask, double dropout_p, bool is_causal,
                                           std::optional<double> scale, bool enable_gqa) {
    return scaled_dot_product_attention(query, key, value, opt(attn_mask), dropout_p, is_causal, scale,
                                        enable_gqa);
  }, py::arg("query"), py::arg("key"), py::arg("value"), py::arg("attn_mask") = py::none(),
     py::arg("dropout_p") = 0.0, py::arg("is_causal") = false, py::arg("scale") = py::none(),
     py::arg("enable_gqa") = false);

  // Returns (attn_output, attn_weights or None).
  m.def("multi_head_attention_forward",
        [](const Tensor& query, const Tensor& key, const Tensor& value, int64_t embed_dim_to_check,
           int64_t num_heads, const OptTensor& in_proj_weight, const OptTensor& in_proj_bias,
           const OptTensor& bias_k, const OptTensor& bias_v, bool add_zero_attn, double dropout_p,
           const Tensor& out_proj_weight, const OptTensor& out_proj_bias, bool training,
           const OptTensor& key_padding_mask, bool need_weights, const OptTensor& attn_mask,
           bool use_separate_proj_weight, const OptTensor& q_proj_weight,
           const OptTensor& k_proj_weight, const OptTensor& v_proj_weight, const OptTensor& static_k,
           const OptTensor& static_v, bool average_attn_weights, bool is_causal) {
    auto options = MultiheadAttentionForwardFuncOptions(
                       embed_dim_to_check, num_heads, opt(in_proj_weight), opt(in_proj_bias),
                       opt(bias_k), opt(bias_v), add_zero_attn, dropout_p, out_proj_weight,
                       opt(out_proj_bias))
                       .training(training)
                       .key_padding_mask(opt(key_padding_mask))
                       .need_weights(need_weights)
                       .attn_mask(opt(attn_mask))
                       .use_separate_proj_weight(use_separate_proj_weight)
                       .q_proj_weight(opt(q_proj_weight))
                       .k_proj_weight(opt(k_proj_weight))
                       .v_proj_weight(opt(v_proj_weight))
                       .static_k(opt(static_k))
                       .static_v(opt(static_v))
                       .average_attn_weights(average_attn_weights)
                       .is_causal(is_causal);
    auto [out, weights] = multi_head_attention_forward(query, key, value, options);
    return py::make_tuple(out, weights.defined() ? py::cast(weights) : py::none());
  }, py::arg("query"), py::arg("key"), py::arg("value"), py::arg("embed_dim_to_check"),
     py::arg("num_heads"), py::arg("in_proj_weight"), py::arg("in_proj_bias"), py::arg("bias_k"),
     py::arg("bias_v"), py::arg("add_zero_attn"), py::arg("dropout_p"), py::arg("out_proj_weight"),
     py::arg("out_proj_bias"), py::arg("training") = true, py::arg("key_padding_mask") = py::none(),
     py::arg("need_weights") = true, py::arg("attn_mask") = py::none(),
     py::arg("use_separate_proj_weight") = false, py::arg("q_proj_weight") = py::none(),
     py::arg("k_proj_weight") = py::none(), py::arg("v_proj_weight") = py::none(),
     py::arg("static_k") = py::none(), py::arg("static_v") = py::none(),
     py::arg("average_attn_weights") = true, py::arg("is_causal") = false);
}

}  // namespace ember::python
