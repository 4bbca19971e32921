// The graph IR of the tracer (DESIGN.md, Tracer): what ember.jit.trace records,
// what the passes rewrite, what a model file holds and what the interpreter runs.
//
// A Graph is in SSA form: every Value is defined once, by the graph's inputs, by
// a named parameter or buffer of the traced module, by a constant tensor, or as an
// output of a Node, and every Node uses only values defined before it. Nodes are
// dispatched ops (one row of the op table) with their non-tensor arguments as
// Attrs, exactly as the dispatcher saw them in the OpCall.
//
// In-place ops (and out= calls) write into tensors that exist before the op: the
// node lists them in `preset` (the values whose tensors the op writes), and its
// `outputs` are new values that, when run, alias those tensors. Such a node has a
// side effect, so passes never remove, merge or fold it.
//
// An op that writes into a tensor the trace never saw (the output an op function
// allocated itself: zeros() is empty() + fill_, x.to(dtype) is empty() + copy_,
// arange() writes into a fresh tensor) is recorded as an ordinary op with a new
// output: no preset, and that tensor, where it is also an input, left out
// (kNoValue). Its invoker allocates the output from the traced output's dtype and
// sizes on the device the graph runs on.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dispatch/op_call.h"
#include "jit/symbolic.h"

namespace ember::jit {

using ValueId = int32_t;
constexpr ValueId kNoValue = -1;  // an optional tensor input left out

enum class ValueKind : uint8_t {
  Input,      // the i-th argument of forward
  Parameter,  // a named parameter or buffer of the module ("fc1.weight")
  Constant,   // a tensor the trace met that is neither (a closure, a number)
  NodeOutput  // defined by nodes[node].outputs[index]
};

struct Value {
  ValueKind kind = ValueKind::NodeOutput;
  // Input: "x", "x1", ...; Parameter: its dotted name; Constant: "c0", "c1", ...;
  // NodeOutput: empty (printed by number).
  std::string name;
  int32_t node = -1;   // NodeOutput: the defining node
  int32_t index = 0;   // NodeOutput: which of its outputs; Input: the argument position
  // What the value was when traced (for printing, checks and ONNX shapes).
  DType dtype = kFloat32;
  DimVector sizes;
  // A Python number an op wrapped as a 0-dim tensor: it takes part in type
  // promotion as a number (int tensor * 2.5 is float32, not float64), so its
  // replacement at run time (a fresh output, a folded constant) must be one too.
  bool wrapped_number = false;
  // Symbolic sizes (jit/symbolic.h): empty when every dim is static, else per
  // dim kStaticDim, kUnknownDim or an index into Graph::exprs.
  std::vector<int32_t> size_exprs;
  // A Constant that is a 0-dim integer computed from the symbols (x * x.shape[1]):
  // an index into Graph::exprs, its tensor made at run time; else -1.
  int32_t value_expr = -1;
};

struct Node {
  OpId op;
  std::vector<ValueId> inputs;   // kNoValue for an undefined (left out) tensor
  std::vector<Attr> attrs;
  std::vector<ValueId> preset;   // values the op writes into (in-place / out=), else empty
  std::vector<ValueId> outputs;
  // Integer attributes that are expressions of the graph's symbols.
  std::vector<SymAttr> sym_attrs;
};

struct Graph {
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<ValueId> inputs;   // in argument order
  std::vector<ValueId> outputs;  // in the order forward returns them (flattened)
  // How forward's result nests the outputs, as JSON text: an index into `outputs`,
  // or a list of such nests (a tuple): "0", "[0, [1, 2]]". Empty means "0".
  std::string output_structure;
  // The tensors of Parameter and Constant values, by value name.
  std::map<std::string, Tensor> tensors;
  // Dynamic shapes (jit/symbolic.h): the symbols, bound from the inputs' sizes at
  // run time, and the expressions that values and attributes refer to.
  std::vector<Symbol> symbols;
  std::vector<SymExpr> exprs;

  ValueId add_value(Value v);
  // Appends a node and defines its outputs (n_outputs new values, metadata to be
  // filled by the caller). Returns the node's index.
  int32_t add_node(OpId op, std::vector<ValueId> inputs, std::vector<Attr> attrs,
                   std::vector<ValueId> preset, size_t n_outputs);

  // The SSA listing (traced.graph in Python):
  //   graph(%x : Float(1, 64), %self.fc1.weight : Float(32, 64), ...):
  //     %3 : Float(1, 32) = addmm(%fc1.bias, %x, %2, 1, 1)
  //     return (%3)
  std::string str() const;
  // The symbols' guards as text: "1 <= batch <= 4096, seq % 2 == 0".
  std::string guards_str() const;
  // The name a value is printed with: "%x", "%self.fc1.weight", "%c0", "%7".
  std::string value_name(ValueId v) const;
};

// The expression of dim d of value v, or kStaticDim / kUnknownDim.
inline int32_t size_expr(const Value& v, size_t d) {
  return v.size_exprs.empty() ? kStaticDim : v.size_exprs[d];
}

// Ops whose output sizes depend on the values of their inputs (nonzero,
// masked_select, unique, ...): the shapes after them cannot be checked ahead.
bool has_data_dependent_shape(OpId op);

// Ops that draw random numbers: two runs of the node give different results.
bool draws_random_numbers(OpId op);
// True for nodes that passes must keep where they are: writes into existing
// tensors (preset) and ops that draw random numbers.
bool has_side_effects(const Node& node);

// "Float(2, 3)": a value's type as the listing prints it (PyTorch's spelling).
std::string type_str(const Value& v);
// An attribute as the listing prints it: 1, 0.5, True, [1, 2], None, float32, 'mean'.
std::string attr_str(const Attr& a);

}  // namespace ember::jit
