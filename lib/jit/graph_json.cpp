// Graph <-> JSON text (graph_json.h).
#include "jit/graph_json.h"

#include <cmath>
#include <initializer_list>
#include <limits>

#include "jit/model_limits.h"
#include "serialize/strict_json.h"

namespace ember::jit {

namespace {

using serialize::Json;

constexpr const char* kKindNames[] = {"input", "parameter", "constant", "node"};

// ---- writing ----------------------------------------------------------------------

// Finite doubles are JSON numbers (nlohmann prints the shortest text that reads
// back as the same double); JSON has no inf or nan, so those are strings.
Json real_json(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  return d;
}

Json ints_json(const DimVector& v) { return std::vector<int64_t>(v.begin(), v.end()); }

Json attr_json(const Attr& a) {
  struct Encoder {
    Json operator()(std::monostate) const { return Json::array({"none"}); }
    Json operator()(bool b) const { return Json::array({"bool", b}); }
    Json operator()(int64_t i) const { return Json::array({"int", i}); }
    Json operator()(double d) const { return Json::array({"float", real_json(d)}); }
    Json operator()(const Scalar& s) const {
      if (s.is_bool()) return Json::array({"scalar_bool", s.to_bool()});
      if (s.is_int()) return Json::array({"scalar_int", s.to_int()});
      return Json::array({"scalar_float", real_json(s.to_double())});
    }
    Json operator()(const DimVector& v) const { return Json::array({"ints", ints_json(v)}); }
    Json operator()(DType t) const { return Json::array({"dtype", dtype_name(t)}); }
    Json operator()(Device d) const { return Json::array({"device", d.str()}); }
    Json operator()(const std::string& s) const { return Json::array({"str", s}); }
  };
  return std::visit(Encoder{}, a.value());
}

Json value_json(const Value& v) {
  Json j = {{"kind", kKindNames[static_cast<int>(v.kind)]},
            {"name", v.name},
            {"dtype", dtype_name(v.dtype)},
            {"sizes", ints_json(v.sizes)},
            {"node", v.node},
            {"index", v.index},
            {"wrapped_number", v.wrapped_number}};
  // Format 2's symbolic fields, written only where they say something.
  if (!v.size_exprs.empty()) j["size_exprs"] = v.size_exprs;
  if (v.value_expr >= 0) j["value_expr"] = v.value_expr;
  return j;
}

Json symbol_json(const Symbol& s) {
  return {{"name", s.name}, {"min", s.min}, {"max", s.max}, {"modulus", s.modulus},
          {"remainder", s.remainder}, {"traced", s.traced}};
}

// [[num, den, [symbol, ...]], ...]
Json expr_json(const SymExpr& e) {
  Json terms = Json::array();
  for (const SymTerm& t : e.terms) terms.push_back(Json::array({t.num, t.den, t.symbols}));
  return terms;
}

Json node_json(const Node& n) {
  Json attrs = Json::array();
  for (const Attr& a : n.attrs) attrs.push_back(attr_json(a));
  Json j = {{"op", op_name(n.op)},
            {"inputs", n.inputs},
            {"attrs", std::move(attrs)},
            {"preset", n.preset},
            {"outputs", n.outputs}};
  if (!n.sym_attrs.empty()) {
    Json sym = Json::array();
    for (const SymAttr& a : n.sym_attrs) sym.push_back(Json::array({a.attr, a.element, a.expr}));
    j["sym_attrs"] = std::move(sym);
  }
  return j;
}

// ---- reading ----------------------------------------------------------------------

// Reads one graph JSON tree; `where` in each call says which part is being read
// ("node 3, attribute 1") for the error message.
class GraphReader {
 public:
  explicit GraphReader(const std::string& source) : source_(source) {}

  Graph read(const Json& root) {
    const std::string where = "the graph";
    expect_fields(root, {"values", "nodes", "inputs", "outputs", "output_structure"}, where,
                  {"symbols", "exprs"});
    Graph g;
    const Json& values = array_field(root, "values", where);
    const Json& nodes = array_field(root, "nodes", where);
    if (values.size() > kMaxGraphValues)
      fail(where, "has ", values.size(), " values, more than the limit of ", kMaxGraphValues);
    if (nodes.size() > kMaxGraphNodes)
      fail(where, "has ", nodes.size(), " nodes, more than the limit of ", kMaxGraphNodes);
    g.values.reserve(values.size());
    for (const Json& v : values) g.values.push_back(read_value(v, "value " + std::to_string(g.values.size())));
    g.nodes.reserve(nodes.size());
    for (const Json& n : nodes) g.nodes.push_back(read_node(n, "node " + std::to_string(g.nodes.size())));
    g.inputs = ids(field(root, "inputs", where), "the graph's \"inputs\"");
    g.outputs = ids(field(root, "outputs", where), "the graph's \"outputs\"");
    g.output_structure = string(field(root, "output_structure", where), "the graph's \"output_structure\"");
    if (root.contains("symbols")) {
      const Json& symbols = array_field(root, "symbols", where);
      if (symbols.size() > kMaxSymbols)
        fail(where, "has ", symbols.size(), " symbols, more than the limit of ", kMaxSymbols);
      for (const Json& sym : symbols)
        g.symbols.push_back(read_symbol(sym, "symbol " + std::to_string(g.symbols.size())));
    }
    if (root.contains("exprs")) {
      const Json& exprs = array_field(root, "exprs", where);
      if (exprs.size() > kMaxGraphValues)
        fail(where, "has ", exprs.size(), " expressions, more than the limit of ", kMaxGraphValues);
      for (const Json& e : exprs)
        g.exprs.push_back(read_expr(e, "expression " + std::to_string(g.exprs.size())));
    }
    return g;
  }

 private:
  template <typename... Args>
  [[noreturn]] void fail(const std::string& where, const Args&... what) const {
    bad_model(source_, where, " ", what...);
  }

  void expect_object(const Json& j, const std::string& where) const {
    if (!j.is_object()) fail(where, "must be a JSON object, got a JSON ", j.type_name());
  }
  // j is an object with exactly these keys, and perhaps some of `optional`.
  void expect_fields(const Json& j, std::initializer_list<const char*> keys,
                     const std::string& where,
                     std::initializer_list<const char*> optional = {}) const {
    expect_object(j, where);
    for (const auto& item : j.items()) {
      bool known = false;
      for (const char* k : keys) known = known || item.key() == k;
      for (const char* k : optional) known = known || item.key() == k;
      if (!known) fail(where, "has an unknown field '", serialize::printable(item.key()), "'");
    }
    for (const char* k : keys)
      if (!j.contains(k)) fail(where, "has no field \"", k, "\"");
  }
  const Json& field(const Json& obj, const char* key, const std::string& where) const {
    return obj.at(key);  // present: expect_fields checked
  }
  const Json& array_field(const Json& obj, const char* key, const std::string& where) const {
    const Json& j = field(obj, key, where);
    if (!j.is_array())
      fail(where, "needs \"", key, "\" to be a JSON array, got a JSON ", j.type_name());
    return j;
  }

  int64_t integer(const Json& j, const std::string& where) const {
    if (j.is_number_integer() && !j.is_number_unsigned()) return j.get<int64_t>();
    if (j.is_number_unsigned() &&
        j.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return static_cast<int64_t>(j.get<uint64_t>());
    fail(where, "must be a 64-bit integer, got ", serialize::excerpt(j));
  }
  int32_t int32(const Json& j, const std::string& where) const {
    int64_t v = integer(j, where);
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
      fail(where, "must be a 32-bit integer, got ", v);
    return static_cast<int32_t>(v);
  }
  std::vector<ValueId> ids(const Json& j, const std::string& where) const {
    if (!j.is_array()) fail(where, "must be a JSON array of value ids, got a JSON ", j.type_name());
    std::vector<ValueId> out;
    out.reserve(j.size());
    for (const Json& id : j) out.push_back(int32(id, where + " entry " + std::to_string(out.size())));
    return out;
  }
  DimVector int_list(const Json& j, const std::string& where) const {
    if (!j.is_array()) fail(where, "must be a JSON array of integers, got a JSON ", j.type_name());
    DimVector out;
    for (const Json& i : j) out.push_back(integer(i, where));
    return out;
  }
  std::string string(const Json& j, const std::string& where) const {
    if (!j.is_string()) fail(where, "must be a JSON string, got a JSON ", j.type_name());
    return j.get<std::string>();
  }
  bool boolean(const Json& j, const std::string& where) const {
    if (!j.is_boolean()) fail(where, "must be true or false, got a JSON ", j.type_name());
    return j.get<bool>();
  }
  double real(const Json& j, const std::string& where) const {
    if (j.is_number()) return j.get<double>();
    if (j == "inf") return std::numeric_limits<double>::infinity();
    if (j == "-inf") return -std::numeric_limits<double>::infinity();
    if (j == "nan") return std::numeric_limits<double>::quiet_NaN();
    fail(where, "must be a number or one of \"inf\", \"-inf\", \"nan\", got ",
         serialize::excerpt(j));
  }
  // Only the names graph_to_json writes ("float32", not the alias "float").
  DType dtype(const Json& j, const std::string& where) const {
    std::string name = string(j, where);
    for (int t = 0; t < kNumDTypes; ++t)
      if (name == dtype_name(static_cast<DType>(t))) return static_cast<DType>(t);
    fail(where, "names the unknown dtype '", serialize::printable(name), "'");
  }
  // Only the spelling Device::str() gives ("cuda:0", "cpu"), so that every
  // device a file names is one ember represents exactly.
  Device device(const Json& j, const std::string& where) const {
    std::string spec = string(j, where);
    try {
      Device d(spec);
      if (d.str() == spec) return d;
    } catch (const Error&) {
    }
    fail(where, "names the invalid device '", serialize::printable(spec), "'");
  }

  Value read_value(const Json& j, const std::string& where) const {
    expect_fields(j, {"kind", "name", "dtype", "sizes", "node", "index", "wrapped_number"}, where,
                  {"size_exprs", "value_expr"});
    Value v;
    std::string kind = string(field(j, "kind", where), where + " \"kind\"");
    bool known = false;
    for (int k = 0; k < 4; ++k)
      if (kind == kKindNames[k]) v.kind = static_cast<ValueKind>(k), known = true;
    if (!known)
      fail(where, "has the unknown kind '", serialize::printable(kind),
           "' (input, parameter, constant or node)");
    v.name = string(field(j, "name", where), where + " \"name\"");
    v.dtype = dtype(field(j, "dtype", where), where + " \"dtype\"");
    v.sizes = int_list(field(j, "sizes", where), where + " \"sizes\"");
    v.node = int32(field(j, "node", where), where + " \"node\"");
    v.index = int32(field(j, "index", where), where + " \"index\"");
    v.wrapped_number = boolean(field(j, "wrapped_number", where), where + " \"wrapped_number\"");
    if (j.contains("size_exprs")) {
      std::vector<ValueId> dims = ids(field(j, "size_exprs", where), where + " \"size_exprs\"");
      v.size_exprs.assign(dims.begin(), dims.end());
    }
    if (j.contains("value_expr")) v.value_expr = int32(field(j, "value_expr", where), where + " \"value_expr\"");
    return v;
  }

  Node read_node(const Json& j, const std::string& where) const {
    expect_fields(j, {"op", "inputs", "attrs", "preset", "outputs"}, where, {"sym_attrs"});
    std::string op = string(field(j, "op", where), where + " \"op\"");
    OpId id = op_from_name(op.c_str());
    if (id == kNoOp || op.find('\0') != std::string::npos)
      fail(where, "uses the unknown op '", serialize::printable(op), "'");
    Node n{id, ids(field(j, "inputs", where), where + " \"inputs\""), {}, {}, {}};
    const Json& attrs = array_field(j, "attrs", where);
    for (const Json& a : attrs)
      n.attrs.push_back(attr(a, where + " (" + op + "), attribute " + std::to_string(n.attrs.size())));
    n.preset = ids(field(j, "preset", where), where + " \"preset\"");
    n.outputs = ids(field(j, "outputs", where), where + " \"outputs\"");
    if (j.contains("sym_attrs")) {
      const Json& sym = array_field(j, "sym_attrs", where);
      if (sym.size() > kMaxAttrInts * kMaxNodeAttrs) fail(where, "has too many symbolic attributes");
      for (const Json& a : sym) {
        std::string at = where + " symbolic attribute " + std::to_string(n.sym_attrs.size());
        std::vector<ValueId> t = ids(a, at);
        if (t.size() != 3) fail(at, "must be [attribute, element, expression]");
        n.sym_attrs.push_back(SymAttr{t[0], t[1], t[2]});
      }
    }
    return n;
  }

  Symbol read_symbol(const Json& j, const std::string& where) const {
    expect_fields(j, {"name", "min", "max", "modulus", "remainder", "traced"}, where);
    Symbol s;
    s.name = string(field(j, "name", where), where + " \"name\"");
    s.min = integer(field(j, "min", where), where + " \"min\"");
    s.max = integer(field(j, "max", where), where + " \"max\"");
    s.modulus = integer(field(j, "modulus", where), where + " \"modulus\"");
    s.remainder = integer(field(j, "remainder", where), where + " \"remainder\"");
    s.traced = integer(field(j, "traced", where), where + " \"traced\"");
    return s;
  }

  SymExpr read_expr(const Json& j, const std::string& where) const {
    if (!j.is_array()) fail(where, "must be a JSON array of terms, got a JSON ", j.type_name());
    if (j.size() > kMaxExprTerms) fail(where, "has more than ", kMaxExprTerms, " terms");
    SymExpr e;
    for (const Json& t : j) {
      std::string at = where + " term " + std::to_string(e.terms.size());
      if (!t.is_array() || t.size() != 3) fail(at, "must be [num, den, [symbols]]");
      SymTerm term;
      term.num = integer(t[0], at);
      term.den = integer(t[1], at);
      std::vector<ValueId> syms = ids(t[2], at + " symbols");
      if (syms.size() > kMaxTermDegree) fail(at, "has a degree above ", kMaxTermDegree);
      term.symbols.assign(syms.begin(), syms.end());
      e.terms.push_back(std::move(term));
    }
    return e;
  }

  Attr attr(const Json& j, const std::string& where) const {
    if (!j.is_array() || j.empty() || !j[0].is_string())
      fail(where, "must be a JSON array [kind, value], got ", serialize::excerpt(j));
    const std::string kind = j[0].get<std::string>();
    if (kind == "none") {
      if (j.size() != 1) fail(where, "[\"none\"] takes no value");
      return Attr();
    }
    if (j.size() != 2) fail(where, "must be a JSON array [kind, value] of two entries");
    const Json& v = j[1];
    if (kind == "bool") return Attr(boolean(v, where));
    if (kind == "int") return Attr(integer(v, where));
    if (kind == "float") return Attr(real(v, where));
    if (kind == "scalar_bool") return Attr(Scalar(boolean(v, where)));
    if (kind == "scalar_int") return Attr(Scalar(integer(v, where)));
    if (kind == "scalar_float") return Attr(Scalar(real(v, where)));
    if (kind == "ints") return Attr(int_list(v, where));
    if (kind == "dtype") return Attr(dtype(v, where));
    if (kind == "device") return Attr(device(v, where));
    if (kind == "str") return Attr(string(v, where));
    fail(where, "has the unknown kind '", serialize::printable(kind), "'");
  }

  const std::string& source_;
};

}  // namespace

std::string graph_to_json(const Graph& graph) {
  Json values = Json::array(), nodes = Json::array();
  for (const Value& v : graph.values) values.push_back(value_json(v));
  for (const Node& n : graph.nodes) nodes.push_back(node_json(n));
  Json root = {{"values", std::move(values)},
               {"nodes", std::move(nodes)},
               {"inputs", graph.inputs},
               {"outputs", graph.outputs},
               {"output_structure", graph.output_structure}};
  if (!graph.symbols.empty() || !graph.exprs.empty()) {
    Json symbols = Json::array(), exprs = Json::array();
    for (const Symbol& sym : graph.symbols) symbols.push_back(symbol_json(sym));
    for (const SymExpr& e : graph.exprs) exprs.push_back(expr_json(e));
    root["symbols"] = std::move(symbols);
    root["exprs"] = std::move(exprs);
  }
  try {
    return root.dump();
  } catch (const Json::exception& e) {  // a name or string attribute that is not UTF-8
    throw ValueError(detail::str("save: value names and string attributes must be valid UTF-8 (",
                                 serialize::printable(e.what()), ")"));
  }
}

Graph parse_graph(std::string_view json, const std::string& source) {
  Json root = serialize::parse_strict_json(
      json, serialize::JsonLimits{kMaxGraphJsonDepth, kMaxGraphJsonElements}, source, "the graph");
  return GraphReader(source).read(root);
}

}  // namespace ember::jit
