// A graph run with pointwise fusion, following fusion.h's contract, for the tests and
// bench/fusion.py: nodes run one by one through their invokers (as the interpreter
// runs them, at the traced sizes), except that each fusion group runs as one loop at
// its last node. The deployment runtime (the interpreter's run_graph) calls
// find_fusion_groups / run_fused itself; this driver lets fusion be checked and timed
// on its own, with and without the groups.
#pragma once
#include <vector>

#include "jit/runtime/fusion.h"

namespace ember::jit::runtime {

struct FusionRunStats {
  int64_t groups_fused = 0;     // groups that ran as one loop
  int64_t groups_unfused = 0;   // groups run_fused declined (run node by node)
};

// `groups`: from find_fusion_groups(g), or empty for a plain node-by-node run.
std::vector<Tensor> run_graph_with_fusion(const Graph& g, const std::vector<Tensor>& inputs,
                                          Device device, const std::vector<FusedGroup>& groups,
                                          FusionRunStats* stats = nullptr);

}  // namespace ember::jit::runtime
