// The interpreter: runs a Graph on inputs, node by node, each through its op's
// invoker (lib/jit/op_invoker.h), that is through the op's public function and
// the ordinary dispatcher: any device, autograd, and a trace of its own if one is
// active. Values are released after their last use.
#pragma once
#include <vector>

#include "jit/graph.h"

namespace ember::jit {

// `device` is where ops without tensor inputs put their results (the module's).
std::vector<Tensor> run_graph(const Graph& graph, const std::vector<Tensor>& inputs,
                              Device device);

}  // namespace ember::jit
