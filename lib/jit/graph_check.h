// check_graph: the structural validation every graph read from a model file
// gets before anything runs (and every graph gets before it is saved).
#pragma once
#include <string>

#include "jit/graph.h"

namespace ember::jit {

// Throws ember::Error "<source>: <what is wrong>" (model_limits.h) unless:
//  - counts (values, nodes, node inputs/outputs/attrs, ints per attr, name
//    lengths) are within model_limits.h;
//  - every value has a valid kind and dtype, at most kMaxValueDims non-negative
//    sizes and a byte size that is computed without overflow and at most
//    kMaxValueBytes (even where a size is 0, so that strides cannot overflow);
//  - the graph is SSA: a node-output value is nodes[node].outputs[index] and
//    nothing else defines it, nodes use (as inputs and presets) only values
//    defined before them, graph inputs are the Input values in argument order,
//    and graph outputs are defined values;
//  - every op is known and has an invoker (others are "not supported in model
//    files"), attributes are well formed;
//  - output_structure is an index into outputs or nested lists of them, at most
//    kMaxOutputNesting deep;
//  - every Parameter and Constant value has a uniquely named tensor of its dtype
//    and sizes, and every tensor belongs to one of them.
void check_graph(const Graph& graph, const std::string& source);

}  // namespace ember::jit
