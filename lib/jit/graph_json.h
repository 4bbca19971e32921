// The graph of a model file as JSON text (BRIEF: "Graph JSON"): what
// Module::save writes into the file's metadata and jit::load reads back.
//
//   {"values": [{"kind": "input"|"parameter"|"constant"|"node", "name": str,
//                "dtype": "float32", "sizes": [..], "node": int, "index": int,
//                "wrapped_number": bool}, ...],
//    "nodes": [{"op": "addmm", "inputs": [ids], "attrs": [attr...], "preset": [ids],
//               "outputs": [ids]}, ...],
//    "inputs": [ids], "outputs": [ids], "output_structure": "0"}
//
// An attr is a list [kind, value]: ["none"], ["bool", b], ["int", i], ["float", x],
// ["scalar_bool", b], ["scalar_int", i], ["scalar_float", x], ["ints", [..]],
// ["dtype", "float32"], ["device", "cuda:0"], ["str", s]. Non-finite floats are the
// strings "inf", "-inf" and "nan"; finite ones round-trip exactly.
#pragma once
#include <string>
#include <string_view>

#include "jit/graph.h"

namespace ember::jit {

// The graph's JSON text (its tensors are not part of it).
std::string graph_to_json(const Graph& graph);

// Parses the JSON text into a graph without tensors. Checks that the text has
// the layout above (every field present, of the right JSON type, names of ops,
// kinds and dtypes known, numbers in range of their C++ types); what the values
// mean together (SSA, shapes, tensors) is check_graph's. Every problem throws
// ember::Error "<source>: the graph ..." (model_limits.h).
Graph parse_graph(std::string_view json, const std::string& source);

}  // namespace ember::jit
