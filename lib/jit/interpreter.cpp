// The interpreter (lib/jit/interpreter.h).
#include "jit/interpreter.h"

#include "jit/op_invoker.h"

namespace ember::jit {

namespace {

Tensor& slot(std::vector<Tensor>& env, ValueId v) { return env[static_cast<size_t>(v)]; }

}  // namespace

// For each node, the values whose last use it is (graph outputs are never freed).
RunPlan make_run_plan(const Graph& g) {
  std::vector<int32_t> last(g.values.size(), -1);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    for (ValueId v : g.nodes[n].inputs)
      if (v != kNoValue) last[static_cast<size_t>(v)] = static_cast<int32_t>(n);
    for (ValueId v : g.nodes[n].preset) last[static_cast<size_t>(v)] = static_cast<int32_t>(n);
  }
  for (ValueId v : g.outputs) last[static_cast<size_t>(v)] = -1;
  RunPlan plan;
  plan.release_after.resize(g.nodes.size());
  for (size_t v = 0; v < last.size(); ++v)
    if (last[v] >= 0)
      plan.release_after[static_cast<size_t>(last[v])].push_back(static_cast<ValueId>(v));
  return plan;
}

std::vector<Tensor> run_graph(const Graph& g, const std::vector<Tensor>& inputs, Device device) {
  return run_graph(g, inputs, device, make_run_plan(g));
}

std::vector<Tensor> run_graph(const Graph& g, const std::vector<Tensor>& inputs, Device device,
                              const RunPlan& plan) {
  EMBER_CHECK(plan.release_after.size() == g.nodes.size(), "traced module: stale run plan");
  // Binds the symbols and checks the guards before anything runs.
  std::shared_ptr<const Specialization> spec = plan.shapes->get(g, inputs, device);
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
    env[v] = val.value_expr >= 0 ? spec->constants[v] : it->second;
  }
  std::vector<Tensor> args, preset;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    args.clear();
    preset.clear();
    for (ValueId v : node.inputs) args.push_back(v == kNoValue ? Tensor() : slot(env, v));
    for (ValueId v : node.preset) preset.push_back(slot(env, v));
    InvokeArgs a(g, static_cast<int32_t>(n), args, preset, device, spec.get());
    InvokeFn fn = invoker_for(node.op);
    if (!fn) a.fail("this op cannot run in a traced graph");
    std::vector<Tensor> outs = fn(a);
    if (outs.size() != node.outputs.size())
      a.fail(detail::str("produced ", outs.size(), " outputs, but the graph expects ",
                         node.outputs.size()));
    check_output_sizes(g, *spec, static_cast<int32_t>(n), outs);
    for (size_t i = 0; i < outs.size(); ++i) slot(env, node.outputs[i]) = std::move(outs[i]);
    for (ValueId v : plan.release_after[n]) slot(env, v) = Tensor();
  }
  std::vector<Tensor> result;
  result.reserve(g.outputs.size());
  for (ValueId v : g.outputs) result.push_back(slot(env, v));
  return result;
}

}  // namespace ember::jit
