// Dead-code elimination (lib/jit/passes.h).
#include "jit/passes.h"

namespace ember::jit {

int eliminate_dead_code(Graph& g) {
  std::vector<bool> live(g.values.size(), false);
  for (ValueId v : g.outputs) live[static_cast<size_t>(v)] = true;
  std::vector<bool> keep(g.nodes.size(), false);
  // Backwards: a node is needed when something needs one of its outputs, or when
  // it has a side effect; what it reads is then needed too.
  for (size_t n = g.nodes.size(); n-- > 0;) {
    const Node& node = g.nodes[n];
    bool needed = has_side_effects(node);
    for (ValueId v : node.outputs) needed = needed || live[static_cast<size_t>(v)];
    if (!needed) continue;
    keep[n] = true;
    for (ValueId v : node.inputs)
      if (v != kNoValue) live[static_cast<size_t>(v)] = true;
    for (ValueId v : node.preset) live[static_cast<size_t>(v)] = true;
  }
  int removed = 0;
  for (bool k : keep) removed += !k;
  passes_detail::compact(g, keep);
  return removed;
}

}  // namespace ember::jit
