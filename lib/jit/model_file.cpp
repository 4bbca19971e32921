// Reading and writing model files (model_file.h).
#include "jit/model_file.h"

#include "jit/graph_check.h"
#include "jit/graph_json.h"
#include "jit/model_limits.h"
#include "jit/symbolic_fit.h"
#include "serialize/atomic_file.h"
#include "serialize/strict_json.h"

namespace ember::jit {

namespace {

constexpr const char* kFormatKey = "format";
constexpr const char* kVersionKey = "format_version";
constexpr const char* kGraphKey = "graph";
// The parameters whose tensors require grad, as a JSON list of names: a loaded
// model can be fine-tuned like the module it was traced from (buffers, also
// Parameter values, do not require grad).
constexpr const char* kRequiresGradKey = "requires_grad";

// The format and version entries of the metadata, before the graph is parsed:
// a plain safetensors file or one from a newer ember gets a message that says so.
// Returns the file's format version.
int check_format(const serialize::Metadata& metadata, const std::string& source) {
  auto format = metadata.find(kFormatKey);
  if (format == metadata.end() || format->second != kModelFormat)
    bad_model(source, "it is not an ember model file (its safetensors metadata has no \"",
              kFormatKey, "\": \"", kModelFormat,
              "\"; a file of plain tensors loads with ember.load)");
  auto version = metadata.find(kVersionKey);
  if (version == metadata.end())
    bad_model(source, "its metadata has no \"", kVersionKey, "\"");
  const std::string& v = version->second;
  bool digits = !v.empty() && v.size() <= 9 && v.find_first_not_of("0123456789") == std::string::npos;
  if (!digits)
    bad_model(source, "its \"", kVersionKey, "\" is not a version number");
  int number = std::stoi(v);
  if (number > kModelFormatVersion)
    bad_model(source, "it has format version ", number, ", newer than version ",
              kModelFormatVersion, " that this ember reads (save it again with this ember, or "
              "upgrade ember)");
  if (number < 1) bad_model(source, "its \"", kVersionKey, "\" ", number, " is not a version");
  if (!metadata.count(kGraphKey)) bad_model(source, "its metadata has no \"", kGraphKey, "\"");
  return number;
}

bool is_weight(const Value& v) {
  return v.kind == ValueKind::Parameter || v.kind == ValueKind::Constant;
}

std::string requires_grad_json(const Graph& graph) {
  serialize::Json names = serialize::Json::array();
  for (const Value& v : graph.values)
    if (v.kind == ValueKind::Parameter && graph.tensors.at(v.name).requires_grad())
      names.push_back(v.name);
  return names.dump();
}

// Sets requires_grad on the tensors the metadata lists (once they are where
// map_location put them: a moved tensor is a new leaf). Each must be a
// floating-point parameter of the graph.
void restore_requires_grad(Graph& graph, const serialize::Metadata& metadata,
                           const std::string& source) {
  auto it = metadata.find(kRequiresGradKey);
  if (it == metadata.end()) return;
  const std::string what = detail::str("the \"", kRequiresGradKey, "\" metadata");
  serialize::Json names = serialize::parse_strict_json(
      it->second, serialize::JsonLimits{0, kMaxGraphValues}, source, what);
  if (!names.is_array()) bad_model(source, what, " must be a JSON list of parameter names");
  std::map<std::string, const Value*> parameters;
  for (const Value& v : graph.values)
    if (v.kind == ValueKind::Parameter) parameters[v.name] = &v;
  for (const serialize::Json& name : names) {
    auto p = name.is_string() ? parameters.find(name.get<std::string>()) : parameters.end();
    if (p == parameters.end() || !is_floating(p->second->dtype))
      bad_model(source, what, " lists ", serialize::excerpt(name),
                ", which is not a floating-point parameter of the graph");
    graph.tensors.at(p->first).requires_grad_(true);
  }
}

}  // namespace

void write_model(const Graph& graph, const serialize::ByteSink& sink, const std::string& path) {
  check_graph(graph, detail::str("cannot save model to '", path, "'"));
  serialize::NamedTensors tensors;
  for (const Value& v : graph.values)
    if (is_weight(v)) tensors.emplace_back(v.name, graph.tensors.at(v.name));
  serialize::Metadata metadata{{kFormatKey, kModelFormat},
                               {kVersionKey, std::to_string(kModelFormatVersion)},
                               {kGraphKey, graph_to_json(graph)},
                               {kRequiresGradKey, requires_grad_json(graph)}};
  serialize::write_safetensors(tensors, metadata, sink);
}

void save_model(const Graph& graph, const std::string& path) {
  serialize::write_file_atomically(path, [&](serialize::AtomicFileWriter& file) {
    write_model(graph, [&](const void* p, size_t n) { file.write(p, n); }, path);
  });
}

Graph read_model(const serialize::ByteSource& source, std::optional<Device> map_location) {
  const std::string context = "cannot load model " + source.name();
  // The format and the graph are checked from the header alone, before the
  // tensors' memory is allocated: a large file that is no model fails fast.
  serialize::Metadata metadata = serialize::read_header(source).metadata;
  int version = check_format(metadata, context);
  Graph graph = parse_graph(metadata.at(kGraphKey), context);
  // Format 1 predates symbolic sizes: its data-dependent sizes are marked here,
  // as a trace marks them now.
  if (version < 2) mark_data_dependent_sizes(graph);
  serialize::Contents contents = serialize::read_safetensors(source);
  for (auto& [name, tensor] : contents.tensors)
    graph.tensors.emplace(std::move(name), std::move(tensor));
  check_graph(graph, context);
  for (const Value& v : graph.values) {
    if (!is_weight(v)) continue;
    Tensor& t = graph.tensors.at(v.name);
    if (map_location) t = t.to(*map_location);
    // A number the trace wrapped as a tensor promotes types as a number (graph.h).
    t.impl()->is_wrapped_number = v.wrapped_number;
  }
  restore_requires_grad(graph, metadata, context);
  return graph;
}

Graph load_model(const std::string& path, std::optional<Device> map_location) {
  return read_model(serialize::FileSource(path), map_location);
}

}  // namespace ember::jit
