// Invokers: how the interpreter runs a node. Each runs the op through its public
// C++ function (the one a user calls), never by building an OpCall itself, so
// every argument check a user's call gets also guards a node read from a model
// file: a hostile file can name only ops that have an invoker, and it can only
// pass them arguments their public function checks.
//
// One invoker per op that may appear in a traced graph (lib/jit/invokers/*.cpp,
// one file per .def group), registered with EMBER_REGISTER_INVOKER. Ops without
// one (backward primitives, optimizer steps) cannot be traced: the tracer
// refuses them by name.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "jit/graph.h"

namespace ember::jit { struct Specialization; }

namespace ember::jit {

// One node's arguments at run time. Every accessor checks the position and the
// kind of what is there and throws ember::Error naming the op, the node and the
// position ("model graph node 7 (conv2d): attribute 3 must be an int list, got
// a string"), so a malformed node is an error, never undefined behaviour.
class InvokeArgs {
 public:
  // `spec` (jit/shape_specialize.h) gives the attributes and sizes at this run's
  // input sizes; without one (the passes), the traced ones.
  InvokeArgs(const Graph& graph, int32_t node_index, const std::vector<Tensor>& inputs,
             const std::vector<Tensor>& preset, Device device,
             const Specialization* spec = nullptr);

  const Node& node() const { return *node_; }
  const Graph& graph() const { return *graph_; }
  size_t num_inputs() const { return inputs_.size(); }
  size_t num_attrs() const { return attrs_->size(); }

  // Tensor inputs. tensor(i): must be defined; opt_tensor(i): may be left out.
  const Tensor& tensor(size_t i) const;
  Tensor opt_tensor(size_t i) const;
  // All inputs from position `from` on (cat, stack): each must be defined.
  std::vector<Tensor> tensors_from(size_t from) const;
  // The same, each may be left out (advanced indexing: a left-out index keeps
  // that dim whole).
  std::vector<Tensor> opt_tensors_from(size_t from) const;

  // Attributes, by position (Attr's kinds; a Scalar attr also reads as int or
  // double, and an int attr as double or Scalar, as Attr::to_* allow).
  bool flag(size_t i) const;
  int64_t integer(size_t i) const;
  double real(size_t i) const;
  Scalar scalar(size_t i) const;
  const DimVector& ints(size_t i) const;
  DType dtype(size_t i) const;
  Device device_attr(size_t i) const;
  const std::string& string(size_t i) const;
  bool is_none(size_t i) const;  // the attr at i is None (an optional left out)
  std::optional<int64_t> opt_integer(size_t i) const { return is_none(i) ? std::nullopt : std::optional(integer(i)); }
  std::optional<double> opt_real(size_t i) const { return is_none(i) ? std::nullopt : std::optional(real(i)); }
  std::optional<Scalar> opt_scalar(size_t i) const { return is_none(i) ? std::nullopt : std::optional(scalar(i)); }
  std::optional<DType> opt_dtype(size_t i) const { return is_none(i) ? std::nullopt : std::optional(dtype(i)); }

  // In-place and out= nodes: the tensors the op writes into (node().preset).
  size_t num_preset() const { return preset_.size(); }
  const Tensor& preset(size_t i) const;
  // True when the node writes into its first input (the x.op_() form).
  bool writes_first_input() const;

  // Where ops without tensor inputs (factories, fresh outputs) put their result:
  // the device the graph runs on.
  Device device() const { return device_; }
  // The traced dtype and sizes of the node's i-th output, and of its i-th input
  // (which must not be left out).
  const Value& traced_output(size_t i) const;
  const Value& traced_input(size_t i) const;
  // Their sizes at this run's input sizes (the traced sizes for a static graph).
  const DimVector& output_sizes(size_t i) const;
  const DimVector& input_sizes(size_t i) const;
  // A new tensor of output i's dtype and sizes, on device(): where a node with a
  // left-out first input (see graph.h, fresh outputs) writes its result.
  Tensor fresh_output(size_t i) const;

  // Throws the node's error: "model graph node 7 (conv2d): <what>".
  [[noreturn]] void fail(const std::string& what) const;

 private:
  const Graph* graph_;
  const Node* node_;
  int32_t node_index_;
  const std::vector<Tensor>& inputs_;
  const std::vector<Tensor>& preset_;
  Device device_;
  const Specialization* spec_;
  const std::vector<Attr>* attrs_;
  const DimVector& sizes_of(ValueId v) const;
  const Attr& attr_at(size_t i, const char* kind) const;
};

// Runs the node; returns its outputs (as many as the node has: the interpreter
// checks). In-place forms return the written tensors.
using InvokeFn = std::vector<Tensor> (*)(const InvokeArgs& args);

void register_invoker(OpId op, InvokeFn fn);
// nullptr for ops that cannot be traced.
InvokeFn invoker_for(OpId op);

struct InvokerRegistrar {
  InvokerRegistrar(OpId op, InvokeFn fn) { register_invoker(op, fn); }
};

}  // namespace ember::jit

// In lib/jit/invokers/<group>.cpp:
//   EMBER_REGISTER_INVOKER(add, [](const InvokeArgs& a) -> std::vector<Tensor> { ... });
#define EMBER_REGISTER_INVOKER(op, ...)                       \
  static ::ember::jit::InvokerRegistrar ember_invoker_##op(   \
      ::ember::opid::op, static_cast<::ember::jit::InvokeFn>(__VA_ARGS__))
