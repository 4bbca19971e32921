// In-place reuse: a pointwise node whose first input dies at that node may write
// its result into that input (x.relu_() for x.relu()), saving a buffer and a pass
// over fresh memory. A transformer's feed-forward block then holds one hidden
// activation instead of two.
//
// Chosen once per graph (the node's op is pointwise with an in-place form; its first
// input is an intermediate value, used once by this node and last used here, with
// the result's traced dtype and sizes), and checked again on every run against the
// tensors themselves: the input is contiguous, the only tensor on its storage (no
// view of it, nor any other input, is alive), has the dtype and the broadcast sizes
// of the result, and needs no gradient. Such a node runs from a copy of the graph
// whose node lists the input as written (preset), which its invoker runs as x.op_().
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "jit/graph.h"

namespace ember::jit::runtime {

class InplaceReuse {
 public:
  InplaceReuse() = default;
  // release_after: per node, the values whose last use it is (RunPlan).
  InplaceReuse(const Graph& graph, const std::vector<std::vector<ValueId>>& release_after);

  // The graph to run node n from, writing into its first input (args[0]), or
  // nullptr to run it as recorded.
  const Graph* in_place_graph(size_t n, const std::vector<Tensor>& args) const {
    return n < candidate_.size() && candidate_[n] && qualifies(n, args) ? in_place_.get() : nullptr;
  }
  size_t num_candidates() const;

 private:
  bool qualifies(size_t n, const std::vector<Tensor>& args) const;

  std::vector<uint8_t> candidate_;       // per node
  std::shared_ptr<const Graph> in_place_;  // the candidates rewritten as writes
};

}  // namespace ember::jit::runtime
