// The interpreter: runs a Graph on inputs, node by node, each through its op's
// invoker (lib/jit/op_invoker.h), that is through the op's public function and
// the ordinary dispatcher: any device, autograd, and a trace of its own if one is
// active. Values are released after their last use.
#pragma once
#include <memory>
#include <vector>

#include "jit/graph.h"
#include "jit/runtime/fusion.h"
#include "jit/runtime/inplace_reuse.h"
#include "jit/runtime/plan_cache.h"
#include "jit/shape_specialize.h"

namespace ember::jit {

// What a run needs beyond the graph, worked out once per graph: where each
// value is released (after its last use). jit::Module keeps one per graph.
struct RunPlan {
  std::vector<std::vector<ValueId>> release_after;  // per node
  // The graph at each input size it has run with (jit/shape_specialize.h).
  std::shared_ptr<SpecializationCache> shapes = std::make_shared<SpecializationCache>();
  // The deployment runtime (lib/jit/runtime/): nodes that may write into a dying
  // input, and the CPU memory plans by input signature (nullptr: plan nothing).
  runtime::InplaceReuse inplace;
  std::shared_ptr<runtime::PlanCache> memory_plans;
  // Pointwise fusion (runtime/fusion.h): the groups and, per node, the group that runs
  // at it (its last node), kFusedMember for its other members, or -1.
  static constexpr int32_t kFusedMember = -2;
  std::vector<runtime::FusedGroup> fusion_groups;
  std::vector<int32_t> fusion_at;
  // Per node: the relu node that runs as its epilogue where it can, or -1
  // (runtime/epilogue.h); empty when there is none.
  std::vector<int32_t> relu_epilogue;
};
RunPlan make_run_plan(const Graph& graph);

// `device` is where ops without tensor inputs put their results (the module's).
std::vector<Tensor> run_graph(const Graph& graph, const std::vector<Tensor>& inputs,
                              Device device, const RunPlan& plan);
std::vector<Tensor> run_graph(const Graph& graph, const std::vector<Tensor>& inputs,
                              Device device);

}  // namespace ember::jit
