// The graph IR: building and printing (lib/jit/graph.h).
#include "jit/graph.h"
#include "dispatch/op_ids/core.h"
#include "dispatch/op_ids/nn.h"
#include "dispatch/op_ids/shape_index.h"

#include <cmath>
#include <sstream>

namespace ember::jit {

ValueId Graph::add_value(Value v) {
  values.push_back(std::move(v));
  return static_cast<ValueId>(values.size() - 1);
}

int32_t Graph::add_node(OpId op, std::vector<ValueId> in, std::vector<Attr> attrs,
                        std::vector<ValueId> preset, size_t n_outputs) {
  int32_t index = static_cast<int32_t>(nodes.size());
  Node node{op, std::move(in), std::move(attrs), std::move(preset), {}};
  for (size_t i = 0; i < n_outputs; ++i) {
    Value v;
    v.kind = ValueKind::NodeOutput;
    v.node = index;
    v.index = static_cast<int32_t>(i);
    node.outputs.push_back(add_value(std::move(v)));
  }
  nodes.push_back(std::move(node));
  return index;
}

bool draws_random_numbers(OpId op) {
  switch (op) {
    case opid::uniform_: case opid::normal_: case opid::random_: case opid::randperm:
    case opid::bernoulli_: case opid::dropout:
      return true;
    default:
      return false;
  }
}

bool has_data_dependent_shape(OpId op) {
  // Composites built on these (masked_select, boolean-mask indexing) trace as them.
  return op == opid::nonzero || op == opid::unique;
}

bool has_side_effects(const Node& node) {
  if (!node.preset.empty() || draws_random_numbers(node.op)) return true;
  // Training-mode batch norm updates its running statistics in place.
  return node.op == opid::batch_norm && !node.attrs.empty() &&
         std::holds_alternative<bool>(node.attrs[0].value()) && node.attrs[0].to_bool();
}

namespace {
std::string double_str(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os.precision(17);
  os << d;
  std::string s = os.str();
  if (s.find_first_of(".e") == std::string::npos) s += ".";
  return s;
}

std::string ints_str(const DimVector& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}
}  // namespace

std::string type_str(const Value& v) {
  std::string s = scalar_type_name(v.dtype);
  s += "(";
  for (size_t i = 0; i < v.sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(v.sizes[i]);
  return s + ")";
}

std::string attr_str(const Attr& a) {
  struct Printer {
    std::string operator()(std::monostate) const { return "None"; }
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return double_str(d); }
    std::string operator()(const Scalar& s) const {
      if (s.is_bool()) return s.to_bool() ? "True" : "False";
      if (s.is_int()) return std::to_string(s.to_int());
      return double_str(s.to_double());
    }
    std::string operator()(const DimVector& v) const { return ints_str(v); }
    std::string operator()(DType t) const { return dtype_name(t); }
    std::string operator()(Device d) const { return "'" + d.str() + "'"; }
    std::string operator()(const std::string& s) const { return "'" + s + "'"; }
  };
  return std::visit(Printer{}, a.value());
}

std::string Graph::value_name(ValueId v) const {
  if (v == kNoValue) return "None";
  const Value& val = values.at(static_cast<size_t>(v));
  // Parameters print as attributes of the module (%self.0.weight), so that a
  // Sequential's "0.weight" does not read like the value %0.
  if (val.kind == ValueKind::Parameter) return "%self." + val.name;
  return "%" + (val.name.empty() ? std::to_string(v) : val.name);
}

namespace {
// A value's type with its symbolic dims by name: Float(batch, 64).
std::string symbolic_type_str(const Graph& g, const Value& v) {
  if (v.size_exprs.empty()) return type_str(v);
  std::string s = scalar_type_name(v.dtype);
  s += "(";
  for (size_t d = 0; d < v.sizes.size(); ++d) {
    int32_t e = size_expr(v, d);
    s += d ? ", " : "";
    s += e >= 0 ? expr_str(g.exprs[static_cast<size_t>(e)], g.symbols) : std::to_string(v.sizes[d]);
  }
  return s + ")";
}

// Attribute i of node n, its symbolic ints by their expressions: [batch*seq, 64].
std::string symbolic_attr_str(const Graph& g, const Node& n, size_t i) {
  std::vector<const SymAttr*> mine;
  for (const SymAttr& s : n.sym_attrs)
    if (static_cast<size_t>(s.attr) == i) mine.push_back(&s);
  if (mine.empty()) return attr_str(n.attrs[i]);
  auto expr = [&](int32_t e) { return expr_str(g.exprs[static_cast<size_t>(e)], g.symbols); };
  if (mine[0]->element < 0) return expr(mine[0]->expr);
  const DimVector& ints = n.attrs[i].to_ints();
  std::string out = "[";
  for (size_t k = 0; k < ints.size(); ++k) {
    std::string entry = std::to_string(ints[k]);
    for (const SymAttr* s : mine)
      if (static_cast<size_t>(s->element) == k) entry = expr(s->expr);
    out += (k ? ", " : "") + entry;
  }
  return out + "]";
}
}  // namespace

std::string Graph::str() const {
  std::ostringstream os;
  os << "graph(";
  // Arguments: the inputs, then the parameters and constants the nodes use.
  std::vector<ValueId> args(inputs.begin(), inputs.end());
  for (size_t v = 0; v < values.size(); ++v)
    if (values[v].kind == ValueKind::Parameter || values[v].kind == ValueKind::Constant)
      args.push_back(static_cast<ValueId>(v));
  for (size_t i = 0; i < args.size(); ++i)
    os << (i ? ",\n      " : "") << value_name(args[i]) << " : "
       << symbolic_type_str(*this, values[args[i]]);
  os << "):\n";
  for (const Node& n : nodes) {
    os << "  ";
    for (size_t i = 0; i < n.outputs.size(); ++i)
      os << (i ? ", " : "") << value_name(n.outputs[i]) << " : "
         << symbolic_type_str(*this, values[n.outputs[i]]);
    os << (n.outputs.empty() ? "" : " = ") << op_name(n.op) << "(";
    bool first = true;
    auto sep = [&] { os << (first ? "" : ", "); first = false; };
    for (ValueId in : n.inputs) { sep(); os << value_name(in); }
    for (size_t i = 0; i < n.attrs.size(); ++i) { sep(); os << symbolic_attr_str(*this, n, i); }
    for (ValueId p : n.preset) { sep(); os << "out=" << value_name(p); }
    os << ")\n";
  }
  os << "  return (";
  for (size_t i = 0; i < outputs.size(); ++i) os << (i ? ", " : "") << value_name(outputs[i]);
  os << ")\n";
  for (size_t v = 0; v < values.size(); ++v)
    if (values[v].value_expr >= 0)
      os << "  # " << value_name(static_cast<ValueId>(v)) << " = "
         << expr_str(exprs[static_cast<size_t>(values[v].value_expr)], symbols) << "\n";
  if (!symbols.empty()) os << "  # guards: " << guards_str() << "\n";
  return os.str();
}

std::string Graph::guards_str() const {
  std::string out;
  for (const Symbol& s : symbols) {
    out += out.empty() ? "" : ", ";
    out += s.max == std::numeric_limits<int64_t>::max()
               ? s.name + " >= " + std::to_string(s.min)
               : std::to_string(s.min) + " <= " + s.name + " <= " + std::to_string(s.max);
    if (s.modulus > 1)
      out += ", " + s.name + " % " + std::to_string(s.modulus) + " == " + std::to_string(s.remainder);
  }
  return out;
}

}  // namespace ember::jit
