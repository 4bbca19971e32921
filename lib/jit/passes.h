// Graph passes, run on a traced graph before it is saved or run
// (lib/jit/passes/*.cpp, one pass per file). Each keeps the graph's results:
// nodes with side effects (graph.h: in-place writes, random draws) are never
// removed, merged or folded, and neither is a value that some node later writes
// into (directly or through a view).
#pragma once
#include <string>
#include <vector>

#include "jit/graph.h"

namespace ember::jit {

// Removes nodes whose outputs nothing uses, and parameters and constants no node
// uses. Returns the number of nodes removed.
int eliminate_dead_code(Graph& graph);
// Runs each node whose inputs are all constants now and replaces its outputs by
// constants (when that does not make the constants much larger), then removes
// what is dead. Returns the number of nodes folded.
int fold_constants(Graph& graph);
// Merges nodes that compute the same op on the same values with the same
// attributes. Returns the number of nodes merged away.
int eliminate_common_subexpressions(Graph& graph);

// Makes every parameter and buffer a constant (its value now, detached; those the graph
// writes in place excepted), then folds, merges and removes what that allows: a
// linear's transposed weight is computed once, and batch norm after a convolution is
// folded into it (fold_conv_batch_norm). For deployment (torch.jit.freeze): the
// frozen graph no longer follows the module's parameters. Returns the number frozen.
int freeze_parameters(Graph& graph);

// Folds eval-mode batch norm into the conv2d before it where both are constant
// (lib/jit/passes/fold_batch_norm.cpp); freeze runs it. Equal to the two nodes up to
// float rounding. Returns the number of batch norms folded.
int fold_conv_batch_norm(Graph& graph);

// By name: "dce", "constant_folding", "cse", "freeze"; anything else is a ValueError.
int run_pass(Graph& graph, const std::string& name);
// The passes traced.save and ember.jit.trace(optimize=True) run, in order.
const std::vector<std::string>& default_passes();

// Shared by the passes (lib/jit/passes/graph_edit.cpp).
namespace passes_detail {
// Values that some node writes into in place, directly or through a view or an
// earlier in-place result of theirs.
std::vector<bool> written_values(const Graph& graph);
// Keeps the nodes with keep_node[n] and the values they, the inputs and the
// outputs use; renumbers everything; drops the tensors of dropped values.
void compact(Graph& graph, const std::vector<bool>& keep_node);
}  // namespace passes_detail

}  // namespace ember::jit
