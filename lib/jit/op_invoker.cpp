// The invoker registry and the checked argument accessors (lib/jit/op_invoker.h).
#include "jit/op_invoker.h"

#include "ember/ops/factories.h"
#include "jit/shape_specialize.h"

namespace ember::jit {

namespace {
InvokeFn g_invokers[kOpCapacity] = {};

const char* kind_name(const Attr& a) {
  static const char* const names[] = {"None", "a bool", "an int",   "a float", "a number",
                                      "an int list", "a dtype", "a device", "a string"};
  return names[a.value().index()];
}
}  // namespace

void register_invoker(OpId op, InvokeFn fn) { g_invokers[static_cast<int>(op)] = fn; }

InvokeFn invoker_for(OpId op) {
  int i = static_cast<int>(op);
  return i >= 0 && i < kOpCapacity ? g_invokers[i] : nullptr;
}

InvokeArgs::InvokeArgs(const Graph& graph, int32_t node_index, const std::vector<Tensor>& inputs,
                       const std::vector<Tensor>& preset, Device device,
                       const Specialization* spec)
    : graph_(&graph),
      node_(&graph.nodes.at(static_cast<size_t>(node_index))),
      node_index_(node_index),
      inputs_(inputs),
      preset_(preset),
      device_(device),
      spec_(spec),
      attrs_(spec ? &spec->attrs_of(graph, node_index) : &node_->attrs) {}

void InvokeArgs::fail(const std::string& what) const {
  throw Error(detail::str("model graph node ", node_index_, " (", op_name(node_->op), "): ", what));
}

const Tensor& InvokeArgs::tensor(size_t i) const {
  if (i >= inputs_.size())
    fail(detail::str("expected a tensor input at position ", i, ", but the node has ",
                     inputs_.size(), " inputs"));
  if (!inputs_[i].defined()) fail(detail::str("tensor input ", i, " is required but left out"));
  return inputs_[i];
}

Tensor InvokeArgs::opt_tensor(size_t i) const {
  if (i >= inputs_.size())
    fail(detail::str("expected a tensor input at position ", i, ", but the node has ",
                     inputs_.size(), " inputs"));
  return inputs_[i];
}

std::vector<Tensor> InvokeArgs::tensors_from(size_t from) const {
  std::vector<Tensor> out;
  for (size_t i = from; i < inputs_.size(); ++i) out.push_back(tensor(i));
  return out;
}

std::vector<Tensor> InvokeArgs::opt_tensors_from(size_t from) const {
  std::vector<Tensor> out;
  for (size_t i = from; i < inputs_.size(); ++i) out.push_back(opt_tensor(i));
  return out;
}

const Attr& InvokeArgs::attr_at(size_t i, const char* kind) const {
  if (i >= attrs_->size())
    fail(detail::str("expected ", kind, " attribute at position ", i, ", but the node has ",
                     attrs_->size(), " attributes"));
  return (*attrs_)[i];
}

bool InvokeArgs::is_none(size_t i) const { return attr_at(i, "an").is_none(); }

bool InvokeArgs::flag(size_t i) const {
  const Attr& a = attr_at(i, "a bool");
  if (auto* b = std::get_if<bool>(&a.value())) return *b;
  if (auto* s = std::get_if<Scalar>(&a.value()); s && s->is_bool()) return s->to_bool();
  fail(detail::str("attribute ", i, " must be a bool, got ", kind_name(a)));
}

int64_t InvokeArgs::integer(size_t i) const {
  const Attr& a = attr_at(i, "an int");
  if (auto* v = std::get_if<int64_t>(&a.value())) return *v;
  if (auto* s = std::get_if<Scalar>(&a.value()); s && s->is_int()) return s->to_int();
  fail(detail::str("attribute ", i, " must be an int, got ", kind_name(a)));
}

double InvokeArgs::real(size_t i) const {
  const Attr& a = attr_at(i, "a float");
  const auto& v = a.value();
  if (std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v) ||
      std::holds_alternative<Scalar>(v))
    return a.to_double();
  fail(detail::str("attribute ", i, " must be a float, got ", kind_name(a)));
}

Scalar InvokeArgs::scalar(size_t i) const {
  const Attr& a = attr_at(i, "a number");
  const auto& v = a.value();
  if (std::holds_alternative<Scalar>(v) || std::holds_alternative<int64_t>(v) ||
      std::holds_alternative<double>(v) || std::holds_alternative<bool>(v))
    return a.to_scalar();
  fail(detail::str("attribute ", i, " must be a number, got ", kind_name(a)));
}

const DimVector& InvokeArgs::ints(size_t i) const {
  const Attr& a = attr_at(i, "an int list");
  if (auto* v = std::get_if<DimVector>(&a.value())) return *v;
  fail(detail::str("attribute ", i, " must be an int list, got ", kind_name(a)));
}

DType InvokeArgs::dtype(size_t i) const {
  const Attr& a = attr_at(i, "a dtype");
  if (auto* v = std::get_if<DType>(&a.value())) return *v;
  fail(detail::str("attribute ", i, " must be a dtype, got ", kind_name(a)));
}

Device InvokeArgs::device_attr(size_t i) const {
  const Attr& a = attr_at(i, "a device");
  if (auto* v = std::get_if<Device>(&a.value())) return *v;
  fail(detail::str("attribute ", i, " must be a device, got ", kind_name(a)));
}

const std::string& InvokeArgs::string(size_t i) const {
  const Attr& a = attr_at(i, "a string");
  if (auto* v = std::get_if<std::string>(&a.value())) return *v;
  fail(detail::str("attribute ", i, " must be a string, got ", kind_name(a)));
}

const Tensor& InvokeArgs::preset(size_t i) const {
  if (i >= preset_.size())
    fail(detail::str("expected an output to write into at position ", i, ", but the node has ",
                     preset_.size()));
  return preset_[i];
}

bool InvokeArgs::writes_first_input() const {
  return !node_->preset.empty() && !node_->inputs.empty() && node_->preset[0] != kNoValue &&
         node_->preset[0] == node_->inputs[0];
}

const Value& InvokeArgs::traced_output(size_t i) const {
  if (i >= node_->outputs.size())
    fail(detail::str("expected an output at position ", i, ", but the node has ",
                     node_->outputs.size()));
  return graph_->values.at(static_cast<size_t>(node_->outputs[i]));
}

const Value& InvokeArgs::traced_input(size_t i) const {
  if (i >= node_->inputs.size() || node_->inputs[i] == kNoValue)
    fail(detail::str("expected a tensor input at position ", i));
  return graph_->values.at(static_cast<size_t>(node_->inputs[i]));
}

// A dim that depends on data (-1) is known only as traced.
const DimVector& InvokeArgs::sizes_of(ValueId v) const {
  const DimVector& traced = graph_->values.at(static_cast<size_t>(v)).sizes;
  if (!spec_) return traced;
  const DimVector& sizes = spec_->sizes.at(static_cast<size_t>(v));
  for (int64_t d : sizes)
    if (d < 0) return traced;
  return sizes;
}

const DimVector& InvokeArgs::output_sizes(size_t i) const {
  traced_output(i);  // checks i
  return sizes_of(node_->outputs[i]);
}

const DimVector& InvokeArgs::input_sizes(size_t i) const {
  traced_input(i);  // checks i
  return sizes_of(node_->inputs[i]);
}

Tensor InvokeArgs::fresh_output(size_t i) const {
  const Value& v = traced_output(i);
  Tensor t = empty(output_sizes(i), TensorOptions(v.dtype).device(device_));
  t.impl()->is_wrapped_number = v.wrapped_number;
  return t;
}

}  // namespace ember::jit
