// What the passes share: which values are written in place, and compaction.
#include "autograd/derivatives.h"
#include "jit/passes.h"

namespace ember::jit::passes_detail {

namespace {
// The op table's views are the ops whose derivative row is a view row.
bool is_view_op(OpId op) {
  const autograd::Derivative* d = autograd::find_derivative(op);
  return d && d->is_view;
}
}  // namespace

std::vector<bool> written_values(const Graph& g) {
  std::vector<bool> written(g.values.size(), false);
  std::vector<ValueId> work;
  for (const Node& n : g.nodes)
    for (ValueId p : n.preset) work.push_back(p);
  // A write into v is also a write into what v aliases: the base of a view, the
  // tensor an in-place op wrote (its outputs are that tensor).
  while (!work.empty()) {
    ValueId v = work.back();
    work.pop_back();
    if (v == kNoValue || written[static_cast<size_t>(v)]) continue;
    written[static_cast<size_t>(v)] = true;
    const Value& val = g.values[static_cast<size_t>(v)];
    if (val.kind != ValueKind::NodeOutput) continue;
    const Node& n = g.nodes[static_cast<size_t>(val.node)];
    if (is_view_op(n.op) && !n.inputs.empty()) work.push_back(n.inputs[0]);
    if (static_cast<size_t>(val.index) < n.preset.size())
      work.push_back(n.preset[static_cast<size_t>(val.index)]);
  }
  return written;
}

void compact(Graph& g, const std::vector<bool>& keep_node) {
  std::vector<bool> used(g.values.size(), false);
  auto use = [&](ValueId v) { if (v != kNoValue) used[static_cast<size_t>(v)] = true; };
  for (ValueId v : g.inputs) use(v);
  for (ValueId v : g.outputs) use(v);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (!keep_node[n]) continue;
    for (ValueId v : g.nodes[n].inputs) use(v);
    for (ValueId v : g.nodes[n].preset) use(v);
    for (ValueId v : g.nodes[n].outputs) use(v);  // a kept node keeps all its outputs
  }
  std::vector<ValueId> new_id(g.values.size(), kNoValue);
  std::vector<int32_t> new_node(g.nodes.size(), -1);
  Graph out;
  out.output_structure = g.output_structure;
  out.symbols = g.symbols;
  out.exprs = g.exprs;
  int32_t kept = 0;
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (keep_node[n]) new_node[n] = kept++;
  for (size_t v = 0; v < g.values.size(); ++v) {
    if (!used[v]) continue;
    Value val = g.values[v];
    if (val.kind == ValueKind::NodeOutput) val.node = new_node[static_cast<size_t>(val.node)];
    if (val.kind == ValueKind::Parameter || val.kind == ValueKind::Constant)
      out.tensors[val.name] = g.tensors.at(val.name);
    new_id[v] = out.add_value(std::move(val));
  }
  auto remap = [&](std::vector<ValueId>& ids) {
    for (ValueId& v : ids)
      if (v != kNoValue) v = new_id[static_cast<size_t>(v)];
  };
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (!keep_node[n]) continue;
    Node node = std::move(g.nodes[n]);
    remap(node.inputs);
    remap(node.preset);
    remap(node.outputs);
    out.nodes.push_back(std::move(node));
  }
  out.inputs = g.inputs;
  out.outputs = g.outputs;
  remap(out.inputs);
  remap(out.outputs);
  g = std::move(out);
}

}  // namespace ember::jit::passes_detail
