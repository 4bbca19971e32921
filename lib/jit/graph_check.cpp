// check_graph (graph_check.h).
#include "jit/graph_check.h"

#include <algorithm>
#include <set>

#include "jit/model_limits.h"
#include "jit/op_invoker.h"
#include "serialize/strict_json.h"

namespace ember::jit {

namespace {

class GraphChecker {
 public:
  GraphChecker(const Graph& g, const std::string& source) : g_(g), source_(source) {}

  void run() {
    check_counts();
    check_symbols();
    for (size_t v = 0; v < g_.values.size(); ++v) check_value(static_cast<ValueId>(v));
    check_inputs();
    defined_.assign(g_.values.size(), false);
    for (ValueId v : g_.inputs) defined_[v] = true;
    for (size_t v = 0; v < g_.values.size(); ++v)
      if (is_weight(g_.values[v])) defined_[v] = true;
    for (size_t k = 0; k < g_.nodes.size(); ++k) check_node(static_cast<int32_t>(k));
    check_outputs();
    check_output_structure();
    check_tensors();
    check_symbols_bound();
  }

 private:
  template <typename... Args>
  [[noreturn]] void fail(const Args&... what) const {
    bad_model(source_, what...);
  }

  static bool is_weight(const Value& v) {
    return v.kind == ValueKind::Parameter || v.kind == ValueKind::Constant;
  }
  std::string node_name(int32_t k) const {
    return detail::str("node ", k, " (", is_op(g_.nodes[k].op) ? op_name(g_.nodes[k].op) : "?", ")");
  }

  void check_counts() const {
    if (g_.values.size() > kMaxGraphValues)
      fail("the graph has ", g_.values.size(), " values, more than the limit of ", kMaxGraphValues);
    if (g_.nodes.size() > kMaxGraphNodes)
      fail("the graph has ", g_.nodes.size(), " nodes, more than the limit of ", kMaxGraphNodes);
    if (g_.inputs.size() > kMaxNodeInputs || g_.outputs.size() > kMaxNodeInputs)
      fail("the graph has ", g_.inputs.size(), " inputs and ", g_.outputs.size(),
           " outputs, more than the limit of ", kMaxNodeInputs);
  }

  // The value's dtype, sizes and name; where a node output points.
  void check_value(ValueId id) const {
    const Value& v = g_.values[id];
    if (static_cast<int>(v.kind) > static_cast<int>(ValueKind::NodeOutput))
      fail("value ", id, " has an invalid kind");
    if (static_cast<int>(v.dtype) >= kNumDTypes) fail("value ", id, " has an invalid dtype");
    if (v.name.size() > kMaxNameLength)
      fail("value ", id, " has a name of ", v.name.size(), " bytes, more than the limit of ",
           kMaxNameLength);
    check_sizes(id);
    check_size_exprs(id);
    switch (v.kind) {
      case ValueKind::Input:
        if (v.index < 0 || static_cast<size_t>(v.index) >= g_.inputs.size() ||
            g_.inputs[v.index] != id)
          fail("value ", id, " is input ", v.index, " but is not that entry of the graph's inputs");
        break;
      case ValueKind::Parameter:
      case ValueKind::Constant:
        if (v.name.empty()) fail("value ", id, " is a parameter or constant without a name");
        break;
      case ValueKind::NodeOutput:
        if (v.node < 0 || static_cast<size_t>(v.node) >= g_.nodes.size() || v.index < 0 ||
            static_cast<size_t>(v.index) >= g_.nodes[v.node].outputs.size() ||
            g_.nodes[v.node].outputs[v.index] != id)
          fail("value ", id, " claims to be output ", v.index, " of node ", v.node,
               ", which does not define it");
        break;
    }
  }

  // Sizes that allocate without overflow: the product of the sizes (zeros
  // counted as ones, as strides are) times the element size is bounded.
  void check_sizes(ValueId id) const {
    const Value& v = g_.values[id];
    if (v.sizes.size() > kMaxValueDims)
      fail("value ", id, " has ", v.sizes.size(), " dims, more than the limit of ", kMaxValueDims);
    uint64_t span = itemsize(v.dtype);
    for (int64_t d : v.sizes) {
      if (d < 0) fail("value ", id, " has the negative size ", d, " in ", shape_str(v.sizes));
      if (__builtin_mul_overflow(span, std::max<uint64_t>(static_cast<uint64_t>(d), 1), &span) ||
          span > kMaxValueBytes)
        fail("value ", id, " has the huge shape ", shape_str(v.sizes), " (a tensor of it is over ",
             kMaxValueBytes, " bytes)");
    }
  }

  // The symbols' guards and the expressions' terms (jit/symbolic.h).
  void check_symbols() const {
    if (g_.symbols.size() > kMaxSymbols)
      fail("the graph has ", g_.symbols.size(), " symbols, more than the limit of ", kMaxSymbols);
    for (size_t i = 0; i < g_.symbols.size(); ++i) {
      const Symbol& s = g_.symbols[i];
      if (s.name.empty() || s.name.size() > kMaxNameLength)
        fail("symbol ", i, " has an empty or overlong name");
      if (s.min < 0 || s.min > s.max || s.modulus < 1 || s.remainder < 0 || s.remainder >= s.modulus)
        fail("symbol ", i, " (", serialize::printable(s.name), ") has invalid guards: range [", s.min,
             ", ", s.max, "], remainder ", s.remainder, " modulo ", s.modulus);
    }
    for (size_t e = 0; e < g_.exprs.size(); ++e) {
      if (g_.exprs[e].terms.size() > kMaxExprTerms)
        fail("expression ", e, " has more than ", kMaxExprTerms, " terms");
      for (const SymTerm& t : g_.exprs[e].terms) {
        if (t.den <= 0 || t.symbols.size() > kMaxTermDegree)
          fail("expression ", e, " has a term with the denominator ", t.den, " or a degree above ",
               kMaxTermDegree);
        for (int32_t sym : t.symbols)
          if (sym < 0 || static_cast<size_t>(sym) >= g_.symbols.size())
            fail("expression ", e, " names symbol ", sym, ", but the graph has ", g_.symbols.size());
      }
    }
  }

  bool valid_expr(int32_t e) const { return e >= 0 && static_cast<size_t>(e) < g_.exprs.size(); }

  void check_size_exprs(ValueId id) const {
    const Value& v = g_.values[id];
    if (!v.size_exprs.empty() && v.size_exprs.size() != v.sizes.size())
      fail("value ", id, " has ", v.size_exprs.size(), " symbolic dims for ", v.sizes.size(), " dims");
    for (int32_t e : v.size_exprs)
      if (e != kStaticDim && e != kUnknownDim && !valid_expr(e))
        fail("value ", id, " has a dim of expression ", e, ", which does not exist (the graph has ",
             g_.exprs.size(), ")");
    if (v.value_expr != -1 &&
        (!valid_expr(v.value_expr) || v.kind != ValueKind::Constant || !v.sizes.empty() ||
         !is_integral(v.dtype)))
      fail("value ", id, " has the value expression ", v.value_expr,
           ", but only 0-dim integer constants may, with an expression that exists");
  }

  void check_sym_attr(int32_t k, size_t i) const {
    const Node& n = g_.nodes[k];
    const SymAttr& s = n.sym_attrs[i];
    if (s.attr < 0 || static_cast<size_t>(s.attr) >= n.attrs.size() || !valid_expr(s.expr))
      fail(node_name(k), " symbolic attribute ", i, " names attribute ", s.attr, " and expression ",
           s.expr, ", which do not both exist");
    const Attr::Value& a = n.attrs[static_cast<size_t>(s.attr)].value();
    bool ok = s.element < 0
                  ? s.element == -1 && (std::holds_alternative<int64_t>(a) ||
                                        (std::holds_alternative<Scalar>(a) && std::get<Scalar>(a).is_int()))
                  : std::holds_alternative<DimVector>(a) &&
                        static_cast<size_t>(s.element) < std::get<DimVector>(a).size();
    if (!ok)
      fail(node_name(k), " symbolic attribute ", i, " must name an int, an integer number or an "
           "entry of an int list (attribute ", s.attr, ", element ", s.element, ")");
  }

  // Every symbol is some input dim, so that a run can bind it.
  void check_symbols_bound() const {
    std::vector<bool> bound(g_.symbols.size(), false);
    for (ValueId id : g_.inputs)
      for (int32_t e : g_.values[id].size_exprs)
        if (valid_expr(e))
          if (int32_t s = bare_symbol(g_.exprs[e]); s >= 0) bound[s] = true;
    for (size_t s = 0; s < bound.size(); ++s)
      if (!bound[s])
        fail("symbol ", s, " (", serialize::printable(g_.symbols[s].name), ") is no input's dim");
  }

  void check_inputs() const {
    for (size_t i = 0; i < g_.inputs.size(); ++i) {
      ValueId id = g_.inputs[i];
      if (!in_range(id) || g_.values[id].kind != ValueKind::Input ||
          g_.values[id].index != static_cast<int32_t>(i))
        fail("graph input ", i, " is value ", id, ", which is not input value ", i);
    }
  }

  bool in_range(ValueId id) const {
    return id >= 0 && static_cast<size_t>(id) < g_.values.size();
  }

  // A use of value id by node k: it must exist and be defined before node k.
  void check_use(int32_t k, ValueId id, const char* what, size_t i) const {
    if (!in_range(id))
      fail(node_name(k), " ", what, " ", i, " is value ", id, ", which does not exist (the graph has ",
           g_.values.size(), " values)");
    if (!defined_[id])
      fail(node_name(k), " ", what, " ", i, " is value ", id,
           ", which is not defined before the node (a forward reference)");
  }

  void check_node(int32_t k) {
    const Node& n = g_.nodes[k];
    if (!is_op(n.op)) fail("node ", k, " has an invalid op");
    if (!invoker_for(n.op))
      fail(node_name(k), ": the op '", op_name(n.op), "' is not supported in model files");
    if (n.inputs.size() > kMaxNodeInputs || n.preset.size() > kMaxNodeInputs ||
        n.outputs.size() > kMaxNodeInputs)
      fail(node_name(k), " has more than ", kMaxNodeInputs, " inputs, presets or outputs");
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (n.inputs[i] != kNoValue) check_use(k, n.inputs[i], "input", i);
    for (size_t i = 0; i < n.preset.size(); ++i) check_use(k, n.preset[i], "preset", i);
    if (n.attrs.size() > kMaxNodeAttrs)
      fail(node_name(k), " has ", n.attrs.size(), " attributes, more than the limit of ",
           kMaxNodeAttrs);
    for (size_t i = 0; i < n.attrs.size(); ++i) check_attr(k, i);
    for (size_t i = 0; i < n.sym_attrs.size(); ++i) check_sym_attr(k, i);
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      ValueId id = n.outputs[i];
      if (!in_range(id) || g_.values[id].kind != ValueKind::NodeOutput ||
          g_.values[id].node != k || g_.values[id].index != static_cast<int32_t>(i))
        fail(node_name(k), " output ", i, " is value ", id, ", which is not output ", i,
             " of node ", k);
      if (defined_[id]) fail(node_name(k), " defines value ", id, " a second time");
      defined_[id] = true;
    }
  }

  void check_attr(int32_t k, size_t i) const {
    const Attr::Value& a = g_.nodes[k].attrs[i].value();
    if (auto* ints = std::get_if<DimVector>(&a); ints && ints->size() > kMaxAttrInts)
      fail(node_name(k), " attribute ", i, " has ", ints->size(), " ints, more than the limit of ",
           kMaxAttrInts);
    if (auto* s = std::get_if<std::string>(&a); s && s->size() > kMaxNameLength)
      fail(node_name(k), " attribute ", i, " is a string of ", s->size(),
           " bytes, more than the limit of ", kMaxNameLength);
    if (auto* t = std::get_if<DType>(&a); t && static_cast<int>(*t) >= kNumDTypes)
      fail(node_name(k), " attribute ", i, " is an invalid dtype");
    if (auto* d = std::get_if<Device>(&a);
        d && (static_cast<int>(d->type) >= kNumDeviceTypes || d->index < -1))
      fail(node_name(k), " attribute ", i, " is an invalid device");
  }

  void check_outputs() const {
    for (size_t i = 0; i < g_.outputs.size(); ++i) {
      ValueId id = g_.outputs[i];
      if (!in_range(id) || !defined_[id])
        fail("graph output ", i, " is value ", id, ", which the graph does not define");
    }
  }

  void check_output_structure() const {
    const std::string what = "the output structure";
    if (g_.output_structure.empty()) {  // "0"
      if (g_.outputs.empty()) fail(what, " is empty (\"0\"), but the graph has no outputs");
      return;
    }
    serialize::Json root = serialize::parse_strict_json(
        g_.output_structure, serialize::JsonLimits{kMaxOutputNesting - 1, kMaxGraphJsonElements},
        source_, what);
    // Iterative: the nesting is bounded, but a hostile structure's fan-out is not.
    std::vector<const serialize::Json*> todo{&root};
    while (!todo.empty()) {
      const serialize::Json* j = todo.back();
      todo.pop_back();
      if (j->is_array()) {
        for (const auto& e : *j) todo.push_back(&e);
      } else if (!j->is_number_integer() || j->get<int64_t>() < 0 ||
                 static_cast<uint64_t>(j->get<int64_t>()) >= g_.outputs.size()) {
        fail(what, " ", serialize::printable(g_.output_structure.substr(0, 200)),
             " must nest lists of indices into the graph's ", g_.outputs.size(),
             " outputs, but holds ", serialize::excerpt(*j));
      }
    }
  }

  void check_tensors() const {
    std::set<std::string> names;
    for (size_t id = 0; id < g_.values.size(); ++id) {
      const Value& v = g_.values[id];
      if (!is_weight(v)) continue;
      if (!names.insert(v.name).second)
        fail("two parameters or constants are named '", serialize::printable(v.name), "'");
      auto it = g_.tensors.find(v.name);
      if (it == g_.tensors.end() || !it->second.defined())
        fail("the file has no tensor '", serialize::printable(v.name), "' for value ", id);
      const Tensor& t = it->second;
      if (t.dtype() != v.dtype || t.sizes() != v.sizes)
        fail("tensor '", serialize::printable(v.name), "' is ", dtype_name(t.dtype()),
             shape_str(t.sizes()), " but value ", id, " is ", dtype_name(v.dtype),
             shape_str(v.sizes));
    }
    for (const auto& [name, t] : g_.tensors)
      if (!names.count(name))
        fail("the file's tensor '", serialize::printable(name),
             "' belongs to no parameter or constant of the graph");
  }

  const Graph& g_;
  const std::string& source_;
  std::vector<bool> defined_;
};

}  // namespace

void check_graph(const Graph& graph, const std::string& source) {
  GraphChecker(graph, source).run();
}

}  // namespace ember::jit
