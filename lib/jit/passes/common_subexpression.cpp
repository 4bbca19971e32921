// Common-subexpression elimination (lib/jit/passes.h).
#include <map>

#include "jit/passes.h"

namespace ember::jit {

namespace {
// What makes two nodes compute the same thing: op, inputs, attributes (by kind
// and printed value: 17 significant digits tell doubles apart) and the traced
// output types (a fresh output's node takes its shape from them: zeros()).
std::string node_key(const Graph& g, const Node& n) {
  std::string key = std::to_string(static_cast<int>(n.op)) + "(";
  for (ValueId v : n.inputs) key += std::to_string(v) + ",";
  key += ";";
  for (const Attr& a : n.attrs) key += std::to_string(a.value().index()) + ":" + attr_str(a) + ",";
  for (const SymAttr& s : n.sym_attrs)
    key += "s" + std::to_string(s.attr) + "." + std::to_string(s.element) + "=" + std::to_string(s.expr) + ",";
  key += ")";
  for (ValueId v : n.outputs) {
    const Value& val = g.values[static_cast<size_t>(v)];
    key += type_str(val) + (val.wrapped_number ? "w" : "");
    for (int32_t e : val.size_exprs) key += "e" + std::to_string(e);
  }
  return key;
}
// Constants that hold the same single value are one value: a trace records each
// number operand as a constant of its own (`x * 2 + y * 2` has two 2s), and the
// nodes reading them can only merge once their inputs are the same value.
void merge_equal_constants(const Graph& g, const std::vector<bool>& written,
                           std::vector<ValueId>& replace) {
  std::map<std::string, ValueId> seen;
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& val = g.values[v];
    if (val.kind != ValueKind::Constant || written[v] || val.value_expr >= 0) continue;
    auto t = g.tensors.find(val.name);
    if (t == g.tensors.end() || t->second.numel() != 1 || !t->second.is_cpu()) continue;
    const Tensor& c = t->second;
    std::string key = type_str(val) + (val.wrapped_number ? "w:" : ":") +
                      std::string(static_cast<const char*>(c.data_ptr()), itemsize(c.dtype()));
    auto [it, fresh] = seen.emplace(std::move(key), static_cast<ValueId>(v));
    if (!fresh) replace[v] = it->second;
  }
}
}  // namespace

int eliminate_common_subexpressions(Graph& g) {
  std::vector<bool> written = passes_detail::written_values(g);
  std::vector<ValueId> replace(g.values.size());
  for (size_t v = 0; v < replace.size(); ++v) replace[v] = static_cast<ValueId>(v);
  auto resolve = [&](std::vector<ValueId>& ids) {
    for (ValueId& v : ids)
      if (v != kNoValue) v = replace[static_cast<size_t>(v)];
  };
  merge_equal_constants(g, written, replace);
  std::map<std::string, int32_t> seen;
  std::vector<bool> keep(g.nodes.size(), true);
  int merged = 0;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    Node& node = g.nodes[n];
    resolve(node.inputs);
    resolve(node.preset);
    // A write may change what any earlier value holds (through an alias): what
    // was computed before it is not reused after it.
    if (has_side_effects(node)) { seen.clear(); continue; }
    bool mergeable = true;
    for (ValueId v : node.outputs) mergeable = mergeable && !written[static_cast<size_t>(v)];
    if (!mergeable) continue;
    auto [it, fresh] = seen.emplace(node_key(g, node), static_cast<int32_t>(n));
    if (fresh) continue;
    const Node& first = g.nodes[static_cast<size_t>(it->second)];
    for (size_t i = 0; i < node.outputs.size(); ++i)
      replace[static_cast<size_t>(node.outputs[i])] = first.outputs[i];
    keep[n] = false;
    ++merged;
  }
  resolve(g.outputs);
  passes_detail::compact(g, keep);
  return merged;
}

}  // namespace ember::jit
