// A graph run with pointwise fusion (lib/jit/runtime/fusion_run.h).
#include "jit/runtime/fusion_run.h"

#include "jit/op_invoker.h"

namespace ember::jit::runtime {

namespace {

void run_node(const Graph& g, int32_t n, std::vector<Tensor>& env, Device device) {
  const Node& node = g.nodes[static_cast<size_t>(n)];
  std::vector<Tensor> args, preset;
  for (ValueId v : node.inputs) args.push_back(v == kNoValue ? Tensor() : env[static_cast<size_t>(v)]);
  for (ValueId v : node.preset) preset.push_back(env[static_cast<size_t>(v)]);
  InvokeArgs a(g, n, args, preset, device);
  InvokeFn fn = invoker_for(node.op);
  if (!fn) a.fail("this op cannot run in a traced graph");
  std::vector<Tensor> outs = fn(a);
  if (outs.size() != node.outputs.size())
    a.fail(detail::str("produced ", outs.size(), " outputs, but the graph expects ", node.outputs.size()));
  for (size_t i = 0; i < outs.size(); ++i) env[static_cast<size_t>(node.outputs[i])] = std::move(outs[i]);
}

}  // namespace

std::vector<Tensor> run_graph_with_fusion(const Graph& g, const std::vector<Tensor>& inputs,
                                          Device device, const std::vector<FusedGroup>& groups,
                                          FusionRunStats* stats) {
  EMBER_CHECK(inputs.size() == g.inputs.size(), "run_graph_with_fusion: the graph takes ",
              g.inputs.size(), " input(s), got ", inputs.size());
  std::vector<Tensor> env(g.values.size());
  for (size_t i = 0; i < inputs.size(); ++i) env[static_cast<size_t>(g.inputs[i])] = inputs[i];
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& val = g.values[v];
    if (val.kind != ValueKind::Parameter && val.kind != ValueKind::Constant) continue;
    auto it = g.tensors.find(val.name);
    EMBER_CHECK(it != g.tensors.end(), "run_graph_with_fusion: no tensor for '", val.name, "'");
    env[v] = it->second;
  }
  // Per node: the group it belongs to, or -1.
  std::vector<int32_t> group_of(g.nodes.size(), -1);
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (int32_t n : groups[gi].nodes) group_of[static_cast<size_t>(n)] = static_cast<int32_t>(gi);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    int32_t gi = group_of[n];
    if (gi < 0) {
      run_node(g, static_cast<int32_t>(n), env, device);
      continue;
    }
    const FusedGroup& group = groups[static_cast<size_t>(gi)];
    if (static_cast<int32_t>(n) != group.nodes.back()) continue;  // the group runs at its last node
    if (run_fused(group, g, env, device)) {
      if (stats) ++stats->groups_fused;
    } else {
      if (stats) ++stats->groups_unfused;
      for (int32_t m : group.nodes) run_node(g, m, env, device);
    }
  }
  std::vector<Tensor> result;
  for (ValueId v : g.outputs) result.push_back(env[static_cast<size_t>(v)]);
  return result;
}

}  // namespace ember::jit::runtime
