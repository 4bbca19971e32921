// Model files: a traced graph and its weights in one safetensors file.
//
// The file's tensors are the graph's Parameter and Constant tensors under their
// value names (so any safetensors reader sees the weights), and its
// "__metadata__" holds
//   {"format": "ember.jit", "format_version": "1", "graph": "<graph JSON text>",
//    "requires_grad": "<JSON list of the parameters whose tensors require grad>"}
// (graph_json.h). Reading trusts nothing: the safetensors layer checks lengths,
// offsets, dtypes and shapes (lib/serialize), then the graph is parsed and
// checked in full (check_graph) before a caller can run it. Every problem is an
// ember::Error that names the file.
#pragma once
#include <optional>
#include <string>

#include "jit/graph.h"
#include "serialize/safetensors.h"

namespace ember::jit {

constexpr const char* kModelFormat = "ember.jit";
// The graph JSON layout this ember writes and reads; files of a newer version
// are refused with a message saying so. Version 2 added symbolic sizes (the
// graph's "symbols" and "exprs", values' "size_exprs" and "value_expr", nodes'
// "sym_attrs"); version 1 files still load (as static graphs).
constexpr int kModelFormatVersion = 2;

// Writes the model file's bytes (the graph is checked first: a graph that would
// not load is not written). `path` names the file in error messages.
void write_model(const Graph& graph, const serialize::ByteSink& sink, const std::string& path);
// Writes the model file atomically: a failure leaves what was at `path` untouched.
void save_model(const Graph& graph, const std::string& path);

// Reads and checks a model file; map_location moves its tensors to that device.
Graph read_model(const serialize::ByteSource& source,
                 std::optional<Device> map_location = std::nullopt);
Graph load_model(const std::string& path, std::optional<Device> map_location = std::nullopt);

}  // namespace ember::jit
