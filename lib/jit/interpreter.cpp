// The interpreter (lib/jit/interpreter.h).
#include "jit/interpreter.h"

#include "jit/op_invoker.h"

namespace ember::jit {

namespace {

Tensor& slot(std::vector<Tensor>& env, ValueId v) { return env[static_cast<size_t>(v)]; }

// For each node, the values whose last use it is (graph outputs are never freed).
std::vector<std::vector<ValueId>> last_uses(const Graph& g) {
  std::vector<int32_t> last(g.values.size(), -1);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    for (ValueId v : g.nodes[n].inputs)
      if (v != kNoValue) last[static_cast<size_t>(v)] = static_cast<int32_t>(n);
    for (ValueId v : g.nodes[n].preset) last[static_cast<size_t>(v)] = static_cast<int32_t>(n);
  }
  for (ValueId v : g.outputs) last[static_cast<size_t>(v)] = -1;
  std::vector<std::vector<ValueId>> frees(g.nodes.size());
  for (size_t v = 0; v < last.size(); ++v)
    if (last[v] >= 0) frees[static_cast<size_t>(last[v])].push_back(static_cast<ValueId>(v));
  return frees;
}

}  // namespace

std::vector<Tensor> run_graph(const Graph& g, const std::vector<Tensor>& inputs, Device device) {
  EMBER_CHECK(inputs.size() == g.inputs.size(), "traced module: forward expected ",
              g.inputs.size(), " input tensor(s), but got ", inputs.size());
  std::vector<Tensor> env(g.values.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK_TYPE(inputs[i].defined(), "traced module: input ", i, " is not a tensor");
    slot(env, g.inputs[i]) = inputs[i];
  }
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& val = g.values[v];
    if (val.kind != ValueKind::Parameter && val.kind != ValueKind::Constant) continue;
    auto it = g.tensors.find(val.name);
    EMBER_CHECK(it != g.tensors.end(), "traced module: no tensor for ",
                val.kind == ValueKind::Parameter ? "parameter" : "constant", " '", val.name, "'");
    env[v] = it->second;
  }
  std::vector<std::vector<ValueId>> frees = last_uses(g);
  std::vector<Tensor> args, preset;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    args.clear();
    preset.clear();
    for (ValueId v : node.inputs) args.push_back(v == kNoValue ? Tensor() : slot(env, v));
    for (ValueId v : node.preset) preset.push_back(slot(env, v));
    InvokeArgs a(g, static_cast<int32_t>(n), args, preset, device);
    InvokeFn fn = invoker_for(node.op);
    if (!fn) a.fail("this op cannot run in a traced graph");
    std::vector<Tensor> outs = fn(a);
    if (outs.size() != node.outputs.size())
      a.fail(detail::str("produced ", outs.size(), " outputs, but the graph expects ",
                         node.outputs.size()));
    for (size_t i = 0; i < outs.size(); ++i) slot(env, node.outputs[i]) = std::move(outs[i]);
    for (ValueId v : frees[n]) slot(env, v) = Tensor();
  }
  std::vector<Tensor> result;
  result.reserve(g.outputs.size());
  for (ValueId v : g.outputs) result.push_back(slot(env, v));
  return result;
}

}  // namespace ember::jit
