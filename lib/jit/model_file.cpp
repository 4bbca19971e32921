// Reading and writing model files (model_file.h).
#include "jit/model_file.h"

#include "jit/graph_check.h"
#include "jit/graph_json.h"
#include "jit/model_limits.h"
#include "serialize/atomic_file.h"

namespace ember::jit {

namespace {

constexpr const char* kFormatKey = "format";
constexpr const char* kVersionKey = "format_version";
constexpr const char* kGraphKey = "graph";

// The format and version entries of the metadata, before the graph is parsed:
// a plain safetensors file or one from a newer ember gets a message that says so.
void check_format(const serialize::Metadata& metadata, const std::string& source) {
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
}

}  // namespace

void write_model(const Graph& graph, const serialize::ByteSink& sink, const std::string& path) {
  check_graph(graph, detail::str("cannot save model to '", path, "'"));
  serialize::NamedTensors tensors;
  for (const Value& v : graph.values)
    if (v.kind == ValueKind::Parameter || v.kind == ValueKind::Constant)
      tensors.emplace_back(v.name, graph.tensors.at(v.name));
  serialize::Metadata metadata{{kFormatKey, kModelFormat},
                               {kVersionKey, std::to_string(kModelFormatVersion)},
                               {kGraphKey, graph_to_json(graph)}};
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
  check_format(metadata, context);
  Graph graph = parse_graph(metadata.at(kGraphKey), context);
  serialize::Contents contents = serialize::read_safetensors(source);
  for (auto& [name, tensor] : contents.tensors)
    graph.tensors.emplace(std::move(name), std::move(tensor));
  check_graph(graph, context);
  for (const Value& v : graph.values) {
    if (v.kind != ValueKind::Parameter && v.kind != ValueKind::Constant) continue;
    Tensor& t = graph.tensors.at(v.name);
    if (map_location) t = t.to(*map_location);
    // A number the trace wrapped as a tensor promotes types as a number (graph.h).
    t.impl()->is_wrapped_number = v.wrapped_number;
  }
  return graph;
}

Graph load_model(const std::string& path, std::optional<Device> map_location) {
  return read_model(serialize::FileSource(path), map_location);
}

}  // namespace ember::jit
