// Constant folding (lib/jit/passes.h).
#include "ember/autograd.h"
#include "jit/op_invoker.h"
#include "jit/passes.h"

namespace ember::jit {

namespace {
// Folding must not turn a small constant into a big one (expand, zeros(1000, 1000)):
// a folded result may be at most this large, or as large as its inputs together.
constexpr int64_t kMaxFoldedBytes = 64 * 1024;

}  // namespace

int fold_constants(Graph& g) {
  std::vector<bool> written = passes_detail::written_values(g);
  // A constant computed from the symbols (value_expr) differs from run to run.
  auto is_constant = [&](ValueId v) {
    if (v == kNoValue) return true;
    const Value& val = g.values[static_cast<size_t>(v)];
    return val.kind == ValueKind::Constant && val.value_expr < 0;
  };
  NoGradGuard no_grad;
  std::vector<bool> keep(g.nodes.size(), true);
  int folded = 0;
  int64_t next_name = 0;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    if (has_side_effects(node) || !invoker_for(node.op) || !node.sym_attrs.empty()) continue;
    bool foldable = true;
    int64_t in_bytes = 0;
    std::vector<Tensor> args;
    for (ValueId v : node.inputs) {
      foldable = foldable && is_constant(v);
      if (!foldable) break;
      args.push_back(v == kNoValue ? Tensor() : g.tensors.at(g.values[static_cast<size_t>(v)].name));
      if (args.back().defined()) in_bytes += args.back().nbytes();
    }
    // An output with symbolic sizes (arange(seq)) is made anew at every run.
    for (ValueId v : node.outputs)
      foldable = foldable && !written[static_cast<size_t>(v)] &&
                 g.values[static_cast<size_t>(v)].size_exprs.empty();
    if (!foldable) continue;
    Device device = args.empty() || !args[0].defined() ? kCPU : args[0].device();
    std::vector<Tensor> preset;
    InvokeArgs a(g, static_cast<int32_t>(n), args, preset, device);
    std::vector<Tensor> outs = invoker_for(node.op)(a);
    int64_t out_bytes = 0;
    for (const Tensor& t : outs) out_bytes += t.nbytes();
    if (outs.size() != node.outputs.size() || out_bytes > std::max(in_bytes, kMaxFoldedBytes))
      continue;
    for (size_t i = 0; i < outs.size(); ++i) {
      Value& val = g.values[static_cast<size_t>(node.outputs[i])];
      std::string name;
      do name = "folded" + std::to_string(next_name++);
      while (g.tensors.count(name));
      val.kind = ValueKind::Constant;
      val.name = name;
      val.node = -1;
      val.index = 0;
      // A copy: the result may be a view of another constant.
      Tensor folded = outs[i].detach().clone();
      folded.impl()->is_wrapped_number = val.wrapped_number;
      g.tensors[name] = folded;
    }
    keep[n] = false;
    ++folded;
  }
  passes_detail::compact(g, keep);
  return folded;
}

}  // namespace ember::jit
