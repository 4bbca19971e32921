// Freezing (lib/jit/passes.h): parameters become constants, then what depends on the
// weights alone is folded.
#include "jit/passes.h"

namespace ember::jit {

int freeze_parameters(Graph& g) {
  std::vector<bool> written = passes_detail::written_values(g);
  // Inputs a node updates without naming them as written (batch norm in training mode
  // updates its running statistics) stay too.
  for (const Node& n : g.nodes)
    if (has_side_effects(n))
      for (ValueId v : n.inputs)
        if (v != kNoValue) written[static_cast<size_t>(v)] = true;
  int frozen = 0;
  for (size_t v = 0; v < g.values.size(); ++v) {
    Value& val = g.values[v];
    // A buffer the graph updates in place must stay a tensor the module owns.
    if (val.kind != ValueKind::Parameter || written[v]) continue;
    val.kind = ValueKind::Constant;
    Tensor& t = g.tensors.at(val.name);
    t = t.detach();
    ++frozen;
  }
  fold_constants(g);
  fold_conv_batch_norm(g);
  eliminate_common_subexpressions(g);
  eliminate_dead_code(g);
  return frozen;
}

}  // namespace ember::jit
