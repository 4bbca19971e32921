// Passes by name (lib/jit/passes.h).
#include "jit/passes.h"

namespace ember::jit {

int run_pass(Graph& graph, const std::string& name) {
  if (name == "dce") return eliminate_dead_code(graph);
  if (name == "constant_folding") return fold_constants(graph);
  if (name == "cse") return eliminate_common_subexpressions(graph);
  if (name == "freeze") return freeze_parameters(graph);
  throw ValueError(detail::str("ember.jit: unknown graph pass '", name,
                               "' (expected 'dce', 'constant_folding', 'cse' or 'freeze')"));
}

const std::vector<std::string>& default_passes() {
  static const std::vector<std::string> passes = {"constant_folding", "cse", "dce"};
  return passes;
}

}  // namespace ember::jit
