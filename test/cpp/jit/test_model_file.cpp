// Model files (lib/jit/model_file.h): the graph JSON round trip, the file round
// trip, and a clear ember::Error for each kind of malformed or hostile file.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>

#include "../serialize/serialize_test_utils.h"
#include "model_test_graphs.h"
#include "ember/ember.h"
#include "jit/graph_check.h"
#include "jit/graph_json.h"
#include "jit/model_file.h"
#include "jit/model_limits.h"
#include "jit/op_invoker.h"

using namespace ember;
using namespace ember::jit;
using Catch::Contains;
using ember::test::mlp_graph;
using ember::test::same_bytes;
using ember::test::tricky_attrs;
using ember::test::make_value;
using ember::test::TempDir;
using Json = nlohmann::ordered_json;

namespace {

bool same_double(double a, double b) {
  return std::isnan(a) ? std::isnan(b) : std::memcmp(&a, &b, sizeof a) == 0;
}

// Equal kinds and values; doubles bit for bit (NaN equals NaN).
bool same_attr(const Attr& a, const Attr& b) {
  if (a.value().index() != b.value().index()) return false;
  if (auto* d = std::get_if<double>(&a.value())) return same_double(*d, std::get<double>(b.value()));
  if (auto* s = std::get_if<Scalar>(&a.value())) {
    const Scalar& t = std::get<Scalar>(b.value());
    if (s->kind() != t.kind()) return false;
    return s->is_float() ? same_double(s->to_double(), t.to_double()) : s->to_int() == t.to_int();
  }
  return attr_str(a) == attr_str(b);  // exact for every other kind
}

void require_same_graph(const Graph& a, const Graph& b) {
  REQUIRE(a.values.size() == b.values.size());
  for (size_t i = 0; i < a.values.size(); ++i) {
    const Value &u = a.values[i], &v = b.values[i];
    CHECK((u.kind == v.kind && u.name == v.name && u.node == v.node && u.index == v.index &&
           u.dtype == v.dtype && u.sizes == v.sizes && u.wrapped_number == v.wrapped_number));
  }
  REQUIRE(a.nodes.size() == b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const Node &m = a.nodes[i], &n = b.nodes[i];
    CHECK((m.op == n.op && m.inputs == n.inputs && m.preset == n.preset && m.outputs == n.outputs));
    REQUIRE(m.attrs.size() == n.attrs.size());
    for (size_t j = 0; j < m.attrs.size(); ++j) CHECK(same_attr(m.attrs[j], n.attrs[j]));
  }
  CHECK(a.inputs == b.inputs);
  CHECK(a.outputs == b.outputs);
  CHECK(a.output_structure == b.output_structure);
  REQUIRE(a.tensors.size() == b.tensors.size());
  for (const auto& [name, t] : a.tensors) CHECK(same_bytes(t, b.tensors.at(name)));
}

// ---- files in memory and their parts -------------------------------------------------

std::string model_bytes(const Graph& g) {
  std::string out;
  write_model(g, [&](const void* p, size_t n) { out.append(static_cast<const char*>(p), n); },
              "test.ember");
  return out;
}

Graph read_bytes(const std::string& bytes) {
  return read_model(serialize::MemorySource(bytes, "'test.ember'"));
}

// The message of the ember::Error loading `bytes` gives ("" if it loads). Any
// other exception escapes and fails the test.
std::string load_error(const std::string& bytes) {
  try {
    read_bytes(bytes);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string with_length(uint64_t n, const std::string& rest) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(n >> (8 * i));
  return out + rest;
}

// A file edited at the level of its safetensors header (a JSON object) and data.
std::string edit_file(const std::string& file, const std::function<void(Json&, std::string&)>& edit) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(file[i]);
  Json header = Json::parse(file.substr(8, n));
  std::string data = file.substr(8 + n);
  edit(header, data);
  return with_length(header.dump().size(), header.dump() + data);
}

std::string edit_metadata(const std::string& file, const std::function<void(Json&)>& edit) {
  return edit_file(file, [&](Json& header, std::string&) { edit(header["__metadata__"]); });
}

// A file whose graph JSON was edited.
std::string edit_graph(const std::string& file, const std::function<void(Json&)>& edit) {
  return edit_metadata(file, [&](Json& metadata) {
    Json graph = Json::parse(metadata["graph"].get<std::string>());
    edit(graph);
    metadata["graph"] = graph.dump();
  });
}

const std::string& mlp_file() {
  static const std::string bytes = model_bytes(mlp_graph());
  return bytes;
}

// The error of the MLP's file with its graph edited.
std::string graph_error(const std::function<void(Json&)>& edit) {
  return load_error(edit_graph(mlp_file(), edit));
}

std::string attr_error(const Json& attr) {
  return graph_error([&](Json& g) { g["nodes"][1]["attrs"][0] = attr; });
}

}  // namespace

// ---- round trips -----------------------------------------------------------------------

TEST_CASE("graph JSON round-trips every kind of value, node and attribute exactly", "[jit]") {
  Graph g = mlp_graph();
  g.nodes[1].attrs = tricky_attrs();
  g.nodes[0].inputs.push_back(kNoValue);
  g.nodes[2].preset = {4};
  g.values.push_back(make_value(ValueKind::Constant, "c0", kInt64, {}));
  g.output_structure = "[0, [0, [0]]]";
  std::string text = graph_to_json(g);
  Graph back = parse_graph(text, "test");
  back.tensors = g.tensors;
  require_same_graph(g, back);
  CHECK(graph_to_json(back) == text);
}

TEST_CASE("a model file round-trips the graph and its tensors", "[jit]") {
  TempDir dir;
  Graph g = mlp_graph();
  // A non-contiguous weight is saved as a contiguous copy of the same values.
  g.tensors["fc.weight"] = arange(12, kFloat32).reshape({4, 3}).t();
  g.nodes[1].attrs = {Attr(Scalar(0.1))};
  g.tensors["fc.bias"].requires_grad_(true);
  save_model(g, dir.file("m.ember"));
  Graph back = load_model(dir.file("m.ember"));
  CHECK(back.tensors.at("fc.weight").is_contiguous());
  CHECK(back.tensors.at("fc.bias").requires_grad());
  CHECK_FALSE(back.tensors.at("fc.weight").requires_grad());
  require_same_graph(g, back);
  CHECK(dir.entries() == std::vector<std::string>{"m.ember"});

  SECTION("map_location moves the tensors") {
    Graph cpu = load_model(dir.file("m.ember"), kCPU);
    CHECK(cpu.tensors.at("fc.bias").device() == kCPU);
  }
  SECTION("the file is plain safetensors: its tensors are the parameters by name") {
    std::map<std::string, Tensor> tensors = ember::load(dir.file("m.ember"));
    REQUIRE(tensors.size() == 2);
    CHECK(same_bytes(tensors.at("fc.weight"), g.tensors.at("fc.weight")));
    CHECK(ember::load_metadata(dir.file("m.ember")).at("format") == "ember.jit");
  }
}

TEST_CASE("in-place nodes, left-out inputs, constants of every dtype and nested outputs round-trip",
          "[jit]") {
  Graph g = ember::test::feature_graph();
  Graph back = read_bytes(model_bytes(g));
  require_same_graph(g, back);
  CHECK(back.tensors.at("c2").impl()->is_wrapped_number);
  CHECK_FALSE(back.tensors.at("c1").impl()->is_wrapped_number);
}

TEST_CASE("a failed save leaves the target untouched and no temporary file", "[jit]") {
  TempDir dir;
  std::string target = dir.file("m.ember");
  ember::test::write_file(target, "old contents");
  Graph bad = mlp_graph();
  bad.tensors.erase("fc.bias");  // check_graph refuses it before a byte is written
  CHECK_THROWS_WITH(save_model(bad, target), Contains("no tensor 'fc.bias'"));
  Graph bad_utf8 = mlp_graph();
  bad_utf8.nodes[1].attrs.push_back(Attr(std::string("\xff")));  // fails while encoding
  CHECK_THROWS_AS(save_model(bad_utf8, target), ValueError);
  CHECK(ember::test::read_file(target) == "old contents");
  CHECK(dir.entries() == std::vector<std::string>{"m.ember"});
}

// ---- malformed files: the safetensors layer ------------------------------------------------

TEST_CASE("every truncation of a model file is an error", "[jit]") {
  const std::string& file = mlp_file();
  REQUIRE(load_error(file).empty());
  for (size_t n = 0; n < file.size(); ++n) {
    std::string message = load_error(file.substr(0, n));
    INFO("prefix of " << n << " bytes");
    CHECK_THAT(message, Contains("test.ember"));
  }
}

TEST_CASE("wrong header lengths, data offsets and overlaps are errors", "[jit]") {
  const std::string& file = mlp_file();
  std::string rest = file.substr(8);
  CHECK_THAT(load_error(with_length(rest.size() + 1, rest)), Contains("runs past the end"));
  CHECK_THAT(load_error(with_length(uint64_t{1} << 63, rest)), Contains("over the limit"));
  CHECK_THAT(load_error(with_length(20, rest)), Contains("not valid JSON"));
  auto offsets = [&](const char* name, Json value) {
    return load_error(edit_file(file, [&](Json& h, std::string&) { h[name]["data_offsets"] = value; }));
  };
  CHECK_THAT(offsets("fc.bias", {0, 4}), Contains("needs 16 bytes"));
  CHECK_THAT(offsets("fc.bias", {0, 16}), Contains("overlap"));
  CHECK_THAT(offsets("fc.bias", {1000, 1016}), Contains("past the end"));
  CHECK_THAT(offsets("fc.bias", {-1, 15}), Contains("data_offsets"));
  CHECK_THAT(offsets("fc.bias", "0-16"), Contains("data_offsets"));
  // Bytes after the last tensor.
  CHECK_THAT(load_error(edit_file(file, [](Json&, std::string& data) { data += "junk"; })),
             Contains("the tensors cover"));
}

TEST_CASE("format and version are checked first", "[jit]") {
  const std::string& file = mlp_file();
  auto metadata_error = [&](const std::function<void(Json&)>& edit) {
    return load_error(edit_metadata(file, edit));
  };
  CHECK_THAT(metadata_error([](Json& m) { m["format"] = "pytorch"; }),
             Contains("not an ember model file"));
  CHECK_THAT(metadata_error([](Json& m) { m.erase("format"); }), Contains("not an ember model file"));
  CHECK_THAT(metadata_error([](Json& m) { m["format_version"] = "3"; }),
             Contains("format version 3, newer than version 2"));
  CHECK_THAT(metadata_error([](Json& m) { m["format_version"] = "1.0"; }),
             Contains("not a version number"));
  CHECK_THAT(metadata_error([](Json& m) { m["format_version"] = "99999999999999999999"; }),
             Contains("not a version number"));
  CHECK_THAT(metadata_error([](Json& m) { m["format_version"] = "0"; }), Contains("not a version"));
  CHECK_THAT(metadata_error([](Json& m) { m.erase("format_version"); }), Contains("no \"format_version\""));
  CHECK_THAT(metadata_error([](Json& m) { m.erase("graph"); }), Contains("no \"graph\""));
  auto grad_error = [&](const char* names) {
    return metadata_error([&](Json& m) { m["requires_grad"] = names; });
  };
  CHECK(grad_error("[\"fc.bias\"]").empty());
  CHECK_THAT(grad_error("[\"x\"]"),
             Contains("\"requires_grad\" metadata lists \"x\", which is not a floating-point parameter"));
  CHECK_THAT(grad_error("[3]"), Contains("lists 3, which is not"));
  CHECK_THAT(grad_error("{}"), Contains("must be a JSON list of parameter names"));
  CHECK_THAT(grad_error("[[\"fc.bias\"]]"), Contains("nests objects or arrays too deeply"));
  CHECK_THAT(grad_error("[\"fc"), Contains("is not valid JSON"));
  // A plain tensor file (ember::save) is not a model.
  TempDir dir;
  ember::save({{"w", ones({2})}}, dir.file("plain.safetensors"));
  CHECK_THROWS_WITH(load_model(dir.file("plain.safetensors")), Contains("not an ember model file"));
  CHECK_THROWS_WITH(load_model(dir.file("missing.ember")), Contains("missing.ember"));
}

// ---- malformed graphs --------------------------------------------------------------------

TEST_CASE("unknown ops and ops without an invoker are refused", "[jit]") {
  CHECK_THAT(graph_error([](Json& g) { g["nodes"][0]["op"] = "conv9d"; }),
             Contains("node 0 uses the unknown op 'conv9d'"));
  CHECK_THAT(graph_error([](Json& g) { g["nodes"][0]["op"] = std::string("mm\0x", 4); }),
             Contains("unknown op"));
  CHECK_THAT(graph_error([](Json& g) { g["nodes"][0]["op"] = "threshold_backward"; }),
             Contains("'threshold_backward' is not supported in model files"));
  CHECK_THAT(graph_error([](Json& g) { g["nodes"][0]["op"] = 3; }), Contains("must be a JSON string"));
}

TEST_CASE("dangling, forward and duplicate value references are refused", "[jit]") {
  CHECK_THAT(graph_error([](Json& g) { g["nodes"][0]["inputs"][0] = 99; }),
             Contains("node 0 (mm) input 0 is value 99, which does not exist"));
  CHECK_THAT(graph_error([](Json& g) { g["nodes"][0]["inputs"][0] = -2; }), Contains("does not exist"));
  CHECK_THAT(graph_error([](Json& g) { g["nodes"][0]["inputs"][1] = 5; }),
             Contains("node 0 (mm) input 1 is value 5, which is not defined before the node"));
  CHECK_THAT(graph_error([](Json& g) { g["nodes"][1]["inputs"][0] = 4; }),
             Contains("forward reference"));  // its own output
  CHECK_THAT(graph_error([](Json& g) { g["nodes"][0]["preset"] = {-1}; }), Contains("preset 0"));
  CHECK_THAT(graph_error([](Json& g) { g["nodes"][0]["inputs"][0] = Json::array({0}); }),
             Contains("must be a 64-bit integer"));
  CHECK_THAT(graph_error([](Json& g) { g["nodes"][0]["inputs"][0] = int64_t{1} << 40; }),
             Contains("must be a 32-bit integer"));
  // Value 4 defined twice: as the add's output and the relu's.
  CHECK_THAT(graph_error([](Json& g) { g["nodes"][2]["outputs"][0] = 4; }),
             Contains("which does not define it"));
  CHECK_THAT(graph_error([](Json& g) { g["nodes"][2]["outputs"] = {5, 4}; }),
             Contains("output 1 is value 4, which is not output 1 of node 2"));
  CHECK_THAT(graph_error([](Json& g) { g["values"][5]["node"] = 7; }), Contains("which does not define it"));
  CHECK_THAT(graph_error([](Json& g) { g["outputs"] = {6}; }),
             Contains("graph output 0 is value 6, which the graph does not define"));
  CHECK_THAT(graph_error([](Json& g) { g["inputs"] = {0, 1}; }),
             Contains("graph input 1 is value 1, which is not input value 1"));
  CHECK_THAT(graph_error([](Json& g) { g["inputs"] = Json::array(); }),
             Contains("value 0 is input 0 but is not that entry"));
}

TEST_CASE("dtypes, shapes and tensors are checked", "[jit]") {
  CHECK_THAT(graph_error([](Json& g) { g["values"][0]["dtype"] = "float33"; }),
             Contains("value 0 \"dtype\" names the unknown dtype 'float33'"));
  CHECK_THAT(graph_error([](Json& g) { g["values"][0]["dtype"] = "float"; }),  // an alias
             Contains("unknown dtype"));
  CHECK_THAT(graph_error([](Json& g) { g["values"][1]["dtype"] = "float64"; }),
             Contains("tensor 'fc.weight' is float32"));
  CHECK_THAT(graph_error([](Json& g) { g["values"][2]["sizes"] = {5}; }),
             Contains("tensor 'fc.bias' is float32"));
  CHECK_THAT(graph_error([](Json& g) { g["values"][3]["sizes"] = {int64_t{1} << 40, int64_t{1} << 40}; }),
             Contains("value 3 has the huge shape"));
  CHECK_THAT(graph_error([](Json& g) { g["values"][3]["sizes"] = {0, int64_t{1} << 40, int64_t{1} << 40}; }),
             Contains("huge shape"));  // empty, but its strides would overflow
  CHECK_THAT(graph_error([](Json& g) { g["values"][3]["sizes"] = {2, -4}; }),
             Contains("value 3 has the negative size -4"));
  CHECK_THAT(graph_error([](Json& g) { g["values"][3]["sizes"] = std::vector<int>(65, 1); }),
             Contains("65 dims"));
  CHECK_THAT(graph_error([](Json& g) { g["values"][3]["sizes"] = {1.5}; }),
             Contains("must be a 64-bit integer"));
  CHECK_THAT(graph_error([](Json& g) { g["values"][3]["kind"] = "weight"; }), Contains("unknown kind"));
  // A value renamed: its tensor is missing, and the file's tensor is left over.
  CHECK_THAT(graph_error([](Json& g) { g["values"][2]["name"] = "fc.b"; }),
             Contains("the file has no tensor 'fc.b' for value 2"));
  CHECK_THAT(graph_error([](Json& g) { g["values"][2]["name"] = "fc.weight"; }),
             Contains("two parameters or constants are named 'fc.weight'"));
  std::string extra = edit_file(mlp_file(), [](Json& h, std::string& data) {
    h["extra"] = {{"dtype", "F32"}, {"shape", {1}}, {"data_offsets", {data.size(), data.size() + 4}}};
    data += std::string(4, '\0');
  });
  CHECK_THAT(load_error(extra), Contains("tensor 'extra' belongs to no parameter or constant"));
  std::string i32 = edit_file(mlp_file(), [](Json& h, std::string&) { h["fc.bias"]["dtype"] = "I32"; });
  CHECK_THAT(load_error(i32), Contains("tensor 'fc.bias' is int32"));
}

TEST_CASE("malformed attributes are refused", "[jit]") {
  CHECK(attr_error({"scalar_int", 2}).empty());
  CHECK_THAT(attr_error({"int", 1.5}), Contains("node 1 (add), attribute 0 must be a 64-bit integer"));
  CHECK_THAT(attr_error({"int", 18446744073709551615ull}), Contains("64-bit integer"));
  CHECK_THAT(attr_error({"int"}), Contains("[kind, value] of two entries"));
  CHECK_THAT(attr_error({"none", 1}), Contains("takes no value"));
  CHECK_THAT(attr_error("int"), Contains("must be a JSON array [kind, value]"));
  CHECK_THAT(attr_error(Json::array()), Contains("[kind, value]"));
  CHECK_THAT(attr_error({"float", "fast"}), Contains("must be a number or one of"));
  CHECK_THAT(attr_error({"bool", 1}), Contains("must be true or false"));
  CHECK_THAT(attr_error({"ints", {1, "a"}}), Contains("must be a 64-bit integer"));
  CHECK_THAT(attr_error({"ints", 3}), Contains("JSON array of integers"));
  CHECK_THAT(attr_error({"dtype", "float"}), Contains("unknown dtype"));
  CHECK_THAT(attr_error({"device", "cuda:999"}), Contains("invalid device 'cuda:999'"));
  CHECK_THAT(attr_error({"device", "tpu"}), Contains("invalid device"));
  CHECK_THAT(attr_error({"str", 5}), Contains("must be a JSON string"));
  CHECK_THAT(attr_error({"lambda", "os.system"}), Contains("unknown kind 'lambda'"));
  CHECK_THAT(attr_error({"ints", std::vector<int>(kMaxAttrInts + 1, 0)}), Contains("ints, more than the limit"));
  CHECK_THAT(attr_error({"str", std::string(kMaxNameLength + 1, 'a')}), Contains("more than the limit"));
  CHECK_THAT(graph_error([](Json& g) { g["nodes"][1]["attrs"] = std::vector<Json>(65, Json::array({"none"})); }),
             Contains("65 attributes"));
}

TEST_CASE("bad output structures are refused", "[jit]") {
  auto structure_error = [](const std::string& s) {
    return graph_error([&](Json& g) { g["output_structure"] = s; });
  };
  CHECK(structure_error("[0, [0]]").empty());
  CHECK(structure_error("").empty());
  CHECK_THAT(structure_error("1"), Contains("indices into the graph's 1 outputs, but holds 1"));
  CHECK_THAT(structure_error("-1"), Contains("but holds -1"));
  CHECK_THAT(structure_error("0.5"), Contains("holds 0.5"));
  CHECK_THAT(structure_error("{\"a\": 0}"), Contains("the output structure"));
  CHECK_THAT(structure_error("[0, [0"), Contains("the output structure is not valid JSON"));
  CHECK_THAT(structure_error(std::string(33, '[') + "0" + std::string(33, ']')),
             Contains("nests objects or arrays too deeply"));
  CHECK(structure_error(std::string(32, '[') + "0" + std::string(32, ']')).empty());
  CHECK_THAT(graph_error([](Json& g) {
               g["outputs"] = Json::array();
               g["output_structure"] = "";
             }),
             Contains("no outputs"));
}

TEST_CASE("graph JSON of the wrong shape is refused", "[jit]") {
  auto raw_graph_error = [](const std::string& text) {
    return load_error(edit_metadata(mlp_file(), [&](Json& m) { m["graph"] = text; }));
  };
  CHECK_THAT(raw_graph_error(std::string(100000, '[')), Contains("nests objects or arrays too deeply"));
  CHECK_THAT(raw_graph_error("{\"values\": "), Contains("the graph is not valid JSON"));
  CHECK_THAT(raw_graph_error("[]"), Contains("must be a JSON object"));
  CHECK_THAT(raw_graph_error("{\"values\": [], \"values\": []}"), Contains("twice in one object"));
  CHECK_THAT(graph_error([](Json& g) { g.erase("nodes"); }), Contains("has no field \"nodes\""));
  CHECK_THAT(graph_error([](Json& g) { g["extra"] = 1; }), Contains("unknown field 'extra'"));
  CHECK_THAT(graph_error([](Json& g) { g["values"] = Json::object(); }), Contains("JSON array"));
  CHECK_THAT(graph_error([](Json& g) { g["values"][0] = 0; }), Contains("value 0 must be a JSON object"));
  CHECK_THAT(graph_error([](Json& g) { g["values"][0].erase("sizes"); }), Contains("no field \"sizes\""));
  CHECK_THAT(graph_error([](Json& g) {
               g["nodes"][0]["attrs"] = Json::array({Json::array({"ints", Json::parse("[[[1]]]")})});
             }),
             Contains("too deeply"));
  CHECK_THAT(graph_error([](Json& g) { g["values"][0]["name"] = std::string(kMaxNameLength + 1, 'x'); }),
             Contains("name of 4097 bytes"));
}

TEST_CASE("check_graph accepts the graphs it is given to save", "[jit]") {
  Graph g = mlp_graph();
  CHECK_NOTHROW(check_graph(g, "test"));
  g.values[3].dtype = static_cast<DType>(200);  // corrupt memory, not a file
  CHECK_THROWS_WITH(check_graph(g, "test"), Contains("value 3 has an invalid dtype"));
}

TEST_CASE("jit::Module::save and jit::load: a traced function runs the same after the reload",
          "[jit]") {
  ember::test::ensure_invokers();
  TempDir dir;
  Tensor w = randn({3, 4}), b = randn({4});
  auto fn = [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    return {relu(add(mm(in[0], w), b))};
  };
  Tensor x = randn({2, 3});
  jit::Module traced = jit::trace(fn, {x}, {{"fc.weight", w}, {"fc.bias", b}});
  traced.save(dir.file("m.ember"));
  jit::Module loaded = jit::load(dir.file("m.ember"));
  CHECK(loaded.graph_str() == traced.graph_str());
  CHECK(loaded.named_parameters().size() == 2);
  Tensor x2 = randn({5, 3});
  CHECK(same_bytes(loaded(x2), fn({x2})[0]));
  CHECK(same_bytes(jit::load(dir.file("m.ember"), kCPU).forward({x2})[0], fn({x2})[0]));
  CHECK_THROWS_WITH(jit::Module().save(dir.file("e.ember")), Contains("empty"));
  CHECK_THROWS_WITH(jit::load(dir.file("nothing.ember")), Contains("nothing.ember"));
}
