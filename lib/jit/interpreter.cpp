// The interpreter (lib/jit/interpreter.h).
#include "jit/interpreter.h"

#include <algorithm>

#include "jit/op_invoker.h"
#include "jit/runtime/epilogue.h"
#include "jit/runtime/run_memory.h"
#include "jit/runtime/switches.h"

namespace ember::jit {

namespace {

Tensor& slot(std::vector<Tensor>& env, ValueId v) { return env[static_cast<size_t>(v)]; }

}  // namespace

// For each node, the values whose last use it is (graph outputs are never freed;
// a node's outputs that nothing uses are freed right after it).
RunPlan make_run_plan(const Graph& g) {
  std::vector<int32_t> last(g.values.size(), -1);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    for (ValueId v : g.nodes[n].inputs)
      if (v != kNoValue) last[static_cast<size_t>(v)] = static_cast<int32_t>(n);
    for (ValueId v : g.nodes[n].preset) last[static_cast<size_t>(v)] = static_cast<int32_t>(n);
  }
  for (size_t v = 0; v < last.size(); ++v)
    if (last[v] < 0 && g.values[v].kind == ValueKind::NodeOutput) last[v] = g.values[v].node;
  for (ValueId v : g.outputs) last[static_cast<size_t>(v)] = -1;
  RunPlan plan;
  plan.release_after.resize(g.nodes.size());
  for (size_t v = 0; v < last.size(); ++v)
    if (last[v] >= 0)
      plan.release_after[static_cast<size_t>(last[v])].push_back(static_cast<ValueId>(v));
  // A fusion group's members run at its last node: what they release waits for it.
  plan.fusion_groups = runtime::find_fusion_groups(g);
  plan.fusion_at.assign(g.nodes.size(), -1);
  for (size_t k = 0; k < plan.fusion_groups.size(); ++k) {
    const std::vector<int32_t>& members = plan.fusion_groups[k].nodes;
    std::vector<ValueId>& at_last = plan.release_after[static_cast<size_t>(members.back())];
    for (size_t i = 0; i + 1 < members.size(); ++i) {
      plan.fusion_at[static_cast<size_t>(members[i])] = RunPlan::kFusedMember;
      std::vector<ValueId>& released = plan.release_after[static_cast<size_t>(members[i])];
      at_last.insert(at_last.end(), released.begin(), released.end());
      released.clear();
    }
    plan.fusion_at[static_cast<size_t>(members.back())] = static_cast<int32_t>(k);
  }
  plan.relu_epilogue = runtime::find_relu_epilogues(g, plan.fusion_at);
  if (std::all_of(plan.relu_epilogue.begin(), plan.relu_epilogue.end(), [](int32_t r) { return r < 0; }))
    plan.relu_epilogue.clear();  // runs then skip the per-run bookkeeping
  plan.inplace = runtime::InplaceReuse(g, plan.release_after);
  plan.memory_plans = std::make_shared<runtime::PlanCache>();
  return plan;
}

std::vector<Tensor> run_graph(const Graph& g, const std::vector<Tensor>& inputs, Device device) {
  RunPlan plan = make_run_plan(g);
  plan.memory_plans.reset();  // a plan made for one run would never be used again
  return run_graph(g, inputs, device, plan);
}

std::vector<Tensor> run_graph(const Graph& g, const std::vector<Tensor>& inputs, Device device,
                              const RunPlan& plan) {
  EMBER_CHECK(plan.release_after.size() == g.nodes.size(), "traced module: stale run plan");
  // Binds the symbols and checks the guards before anything runs.
  std::shared_ptr<const Specialization> spec = plan.shapes->get(g, inputs, device);
  // Before env: the run's tensors are freed while its memory is still observed.
  runtime::RunMemory memory(plan.memory_plans.get(), inputs, device);
  const bool reuse_inputs = runtime::memory_planning_enabled();
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
  const bool fuse = runtime::fusion_enabled();
  std::vector<Tensor> args, preset;
  auto run_node = [&](size_t n) {
    const Node& node = g.nodes[n];
    args.clear();
    preset.clear();
    for (ValueId v : node.inputs) args.push_back(v == kNoValue ? Tensor() : slot(env, v));
    for (ValueId v : node.preset) preset.push_back(slot(env, v));
    const Graph* in_place = reuse_inputs ? plan.inplace.in_place_graph(n, args) : nullptr;
    if (in_place) preset.push_back(args[0]);
    InvokeArgs a(in_place ? *in_place : g, static_cast<int32_t>(n), args, preset, device, spec.get());
    InvokeFn fn = invoker_for(node.op);
    if (!fn) a.fail("this op cannot run in a traced graph");
    std::vector<Tensor> outs = fn(a);
    if (outs.size() != node.outputs.size())
      a.fail(detail::str("produced ", outs.size(), " outputs, but the graph expects ",
                         node.outputs.size()));
    check_output_sizes(g, *spec, static_cast<int32_t>(n), outs);
    for (size_t i = 0; i < outs.size(); ++i) slot(env, node.outputs[i]) = std::move(outs[i]);
    for (ValueId v : plan.release_after[n]) slot(env, v) = Tensor();
  };
  // The relu of an epilogue that ran is done: its output is the producer's, in place.
  // (A flag per node, not the output's slot: an unused relu output is released at once.)
  const bool epilogues = fuse && plan.relu_epilogue.size() == g.nodes.size();
  std::vector<bool> epilogue_ran(epilogues ? g.nodes.size() : 0, false);
  auto run_epilogue = [&](size_t n) {
    const int32_t r = plan.relu_epilogue[n];
    if (r < 0) return;
    const Node& relu = g.nodes[static_cast<size_t>(r)];
    const Tensor& produced = slot(env, relu.inputs[0]);
    if (!runtime::relu_in_place(produced)) return;
    slot(env, relu.outputs[0]) = produced;
    for (ValueId v : plan.release_after[static_cast<size_t>(r)]) slot(env, v) = Tensor();
    epilogue_ran[static_cast<size_t>(r)] = true;
  };
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const int32_t group = plan.fusion_at.empty() ? -1 : plan.fusion_at[n];
    if (group == RunPlan::kFusedMember) continue;  // runs with its group, at the group's last node
    if (group < 0) {
      if (epilogues && epilogue_ran[n]) continue;  // ran as its producer's epilogue
      run_node(n);
      if (epilogues) run_epilogue(n);
      continue;
    }
    const runtime::FusedGroup& fused = plan.fusion_groups[static_cast<size_t>(group)];
    if (fuse && runtime::run_fused(fused, g, env, device)) {
      for (ValueId v : plan.release_after[n]) slot(env, v) = Tensor();
      continue;
    }
    for (int32_t m : fused.nodes) run_node(static_cast<size_t>(m));
  }
  std::vector<Tensor> result;
  result.reserve(g.outputs.size());
  for (ValueId v : g.outputs) result.push_back(slot(env, v));
  env.clear();
  args.clear();
  preset.clear();
  memory.finish(result);
  return result;
}

}  // namespace ember::jit
