// Batch norm folded into the convolution before it (lib/jit/passes.h), for frozen
// graphs (torch.jit.freeze does the same): in eval mode batch norm is a per-channel
// affine map, y = (conv(x) - mean) * s + beta with s = gamma / sqrt(var + eps), so
// conv(x, W * s, (b - mean) * s + beta) gives y with one node fewer (and lets the
// relu after it run as the convolution's epilogue, runtime/epilogue.h). The new
// weight and bias are computed in float64 and rounded once, so the result differs
// from the two nodes' by float rounding only.
#include <cmath>

#include "dispatch/op_ids/linalg.h"
#include "dispatch/op_ids/nn.h"
#include "ember/autograd.h"
#include "ember/ember.h"
#include "jit/passes.h"

namespace ember::jit {

int fold_conv_batch_norm(Graph& g) {
  std::vector<bool> written = passes_detail::written_values(g);
  std::vector<int32_t> uses(g.values.size(), 0);
  for (const Node& n : g.nodes) {
    for (ValueId v : n.inputs)
      if (v != kNoValue) ++uses[static_cast<size_t>(v)];
    for (ValueId v : n.preset) ++uses[static_cast<size_t>(v)];
  }
  for (ValueId v : g.outputs) ++uses[static_cast<size_t>(v)];
  // A constant tensor (not computed from the symbols, never written), or undefined.
  auto constant = [&](ValueId v, Tensor& out) {
    if (v == kNoValue) return true;
    const Value& val = g.values[static_cast<size_t>(v)];
    if (val.kind != ValueKind::Constant || val.value_expr >= 0 || written[static_cast<size_t>(v)])
      return false;
    out = g.tensors.at(val.name);
    return out.defined() && out.is_floating_point();
  };
  std::vector<ValueId> replaced(g.values.size(), kNoValue);
  std::vector<bool> keep(g.nodes.size(), true);
  int64_t next_name = 0;
  auto add_constant = [&](const Tensor& t) {
    std::string name;
    do name = "bn_folded" + std::to_string(next_name++);
    while (g.tensors.count(name));
    Value val;
    val.kind = ValueKind::Constant;
    val.name = name;
    val.dtype = t.dtype();
    val.sizes = DimVector(t.sizes().begin(), t.sizes().end());
    g.tensors[name] = t;
    return g.add_value(std::move(val));
  };
  NoGradGuard no_grad;
  int folded = 0;
  for (size_t b = 0; b < g.nodes.size(); ++b) {
    const Node& bn = g.nodes[b];
    // batch_norm's attributes: training, momentum, eps.
    if (bn.op != opid::batch_norm || has_side_effects(bn) || bn.inputs.size() != 5 ||
        bn.inputs[0] == kNoValue || bn.attrs.size() != 3 || bn.attrs[0].to_bool())
      continue;
    // The statistics outputs (empty in eval mode) must be unused.
    bool stats_used = false;
    for (size_t i = 1; i < bn.outputs.size(); ++i) stats_used = stats_used || uses[static_cast<size_t>(bn.outputs[i])];
    const ValueId y = bn.inputs[0];
    const Value& yv = g.values[static_cast<size_t>(y)];
    if (stats_used || yv.kind != ValueKind::NodeOutput || uses[static_cast<size_t>(y)] != 1) continue;
    Node& conv = g.nodes[static_cast<size_t>(yv.node)];
    if (conv.op != opid::conv2d || has_side_effects(conv) || conv.inputs.size() != 3 || !conv.sym_attrs.empty())
      continue;
    Tensor w, cb, mean, var, gamma, beta;
    if (!constant(conv.inputs[1], w) || !w.defined() || w.dim() != 4 || !constant(conv.inputs[2], cb) ||
        !constant(bn.inputs[1], mean) || !constant(bn.inputs[2], var) || !mean.defined() ||
        !var.defined() || !constant(bn.inputs[3], gamma) || !constant(bn.inputs[4], beta))
      continue;
    const int64_t c = w.size(0);
    auto per_channel = [&](const Tensor& t) { return !t.defined() || (t.dim() == 1 && t.size(0) == c); };
    if (!per_channel(cb) || !per_channel(mean) || !per_channel(var) || !per_channel(gamma) ||
        !per_channel(beta) || w.device() != mean.device())
      continue;
    const double eps = bn.attrs[2].to_double();
    Tensor scale = var.to(kFloat64).add(eps).rsqrt();
    if (gamma.defined()) scale = scale.mul(gamma.to(kFloat64));
    Tensor shift = (cb.defined() ? cb.to(kFloat64) : zeros_like(scale)).sub(mean.to(kFloat64)).mul(scale);
    if (beta.defined()) shift = shift.add(beta.to(kFloat64));
    Tensor new_w = w.to(kFloat64).mul(scale.view({c, 1, 1, 1})).to(w.dtype()).contiguous();
    Tensor new_b = shift.to(w.dtype()).contiguous();
    conv.inputs[1] = add_constant(new_w);
    conv.inputs[2] = add_constant(new_b);
    replaced[static_cast<size_t>(bn.outputs[0])] = y;
    keep[b] = false;
    ++folded;
  }
  if (folded == 0) return 0;
  replaced.resize(g.values.size(), kNoValue);  // the new constants
  auto remap = [&](std::vector<ValueId>& ids) {
    for (ValueId& v : ids)
      if (v != kNoValue && replaced[static_cast<size_t>(v)] != kNoValue) v = replaced[static_cast<size_t>(v)];
  };
  for (Node& n : g.nodes) {
    remap(n.inputs);
    remap(n.preset);
  }
  remap(g.outputs);
  passes_detail::compact(g, keep);
  eliminate_dead_code(g);  // the old weights and statistics
  return folded;
}

}  // namespace ember::jit
