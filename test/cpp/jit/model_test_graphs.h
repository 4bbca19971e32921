// Graphs made by hand for the model-file tests and the fuzz corpus
// (test/fuzz/make_corpus.cpp): no tracer needed.
#pragma once
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "jit/graph.h"
#include "jit/op_invoker.h"
#include "dispatch/op_ids/elementwise.h"
#include "dispatch/op_ids/linalg.h"

namespace ember::test {

using jit::Graph;
using jit::InvokeArgs;
using jit::Value;
using jit::ValueId;
using jit::ValueKind;

// The graphs below use add, mm and relu. Where the invokers of lib/jit/invokers
// are not linked in (they are written in parallel with the model file), stand-ins
// that call the same public functions are registered, so that check_graph
// accepts the ops; the real ones are kept where they exist.
inline std::vector<Tensor> invoke_add(const InvokeArgs& a) { return {add(a.tensor(0), a.tensor(1), a.scalar(0))}; }
inline std::vector<Tensor> invoke_mm(const InvokeArgs& a) { return {mm(a.tensor(0), a.tensor(1))}; }
inline std::vector<Tensor> invoke_relu(const InvokeArgs& a) { return {relu(a.tensor(0))}; }
inline void ensure_invokers() {
  for (auto [op, fn] : {std::pair{opid::add, &invoke_add}, std::pair{opid::mm, &invoke_mm},
                        std::pair{opid::relu, &invoke_relu}})
    if (!jit::invoker_for(op)) jit::register_invoker(op, fn);
}

inline Value make_value(ValueKind kind, std::string name, DType dtype, DimVector sizes, int32_t index = 0) {
  Value v;
  v.kind = kind;
  v.name = std::move(name);
  v.dtype = dtype;
  v.sizes = std::move(sizes);
  v.index = index;
  return v;
}

// A graph with one input "x" (value 0) and nothing else yet.
inline Graph graph_of_input(DimVector sizes) {
  ensure_invokers();
  Graph g;
  g.inputs = {g.add_value(make_value(ValueKind::Input, "x", kFloat32, std::move(sizes)))};
  return g;
}

// Adds a parameter or constant value with its tensor.
inline ValueId add_weight(Graph& g, ValueKind kind, const std::string& name, const Tensor& t) {
  g.tensors[name] = t;
  return g.add_value(make_value(kind, name, t.dtype(), t.sizes()));
}

// relu(x @ fc.weight + fc.bias): an MLP layer. Values: 0 x, 1 fc.weight,
// 2 fc.bias, 3 mm, 4 add, 5 relu. Nodes: 0 mm, 1 add, 2 relu.
inline Graph mlp_graph() {
  Graph g = graph_of_input({2, 3});
  ValueId x = g.inputs[0];
  ValueId w = add_weight(g, ValueKind::Parameter, "fc.weight",
                         arange(12, kFloat32).reshape({3, 4}).sub(5.0));
  ValueId b = add_weight(g, ValueKind::Parameter, "fc.bias", full({4}, 0.25, kFloat32));
  auto output = [&](int32_t node) {
    ValueId v = g.nodes[node].outputs[0];
    g.values[v].sizes = {2, 4};
    return v;
  };
  ValueId h = output(g.add_node(opid::mm, {x, w}, {}, {}, 1));
  ValueId s = output(g.add_node(opid::add, {h, b}, {Attr(Scalar(int64_t{1}))}, {}, 1));
  ValueId y = output(g.add_node(opid::relu, {s}, {}, {}, 1));
  g.outputs = {y};
  g.output_structure = "0";
  return g;
}

// mlp_graph with a dynamic batch: symbol "batch" in [1, 64] is input dim 0, the
// values of 2 rows have `batch` rows, and the add's alpha is batch - 1 (a
// symbolic attribute: 1 at the traced batch of 2).
inline Graph symbolic_mlp_graph() {
  Graph g = mlp_graph();
  jit::Symbol batch;
  batch.name = "batch";
  batch.min = 1;
  batch.max = 64;
  batch.traced = 2;
  g.symbols = {batch};
  g.exprs = {jit::SymExpr{{jit::SymTerm{1, 1, {0}}}},
             jit::SymExpr{{jit::SymTerm{1, 1, {0}}, jit::SymTerm{-1, 1, {}}}}};
  for (ValueId v : {0, 3, 4, 5}) g.values[v].size_exprs = {0, jit::kStaticDim};
  g.nodes[1].sym_attrs = {jit::SymAttr{0, -1, 1}};
  return g;
}

// Every kind of attribute, with the values a text format gets wrong most easily.
inline std::vector<Attr> tricky_attrs() {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<Attr> attrs = {Attr(), Attr(true), Attr(false),
                             Attr(std::numeric_limits<int64_t>::min()),
                             Attr(std::numeric_limits<int64_t>::max()),
                             Attr(Scalar(true)), Attr(Scalar(int64_t{-7})), Attr(DimVector{}),
                             Attr(DimVector{1, -1, 3}), Attr(kBFloat16), Attr(kBool),
                             Attr(Device("cpu")), Attr(Device("cuda")), Attr(Device("cuda:1")),
                             Attr(std::string()), Attr(std::string("mean \"quoted\" \\ \n\x01 é"))};
  for (double d : {0.1, -0.0, 1e-310, 5e-324, 1.7976931348623157e308, 1.0 / 3, 1e22, 3.0, inf, -inf,
                   std::nan("")}) {
    attrs.emplace_back(d);
    attrs.emplace_back(Scalar(d));
  }
  return attrs;
}

// The other features of the IR: an in-place node (preset), a left-out input,
// constants of several dtypes (one unused, one a wrapped number), several
// outputs in a nested result.
// Values: 0 x, 1 w, 2 c0, 3 c1, 4 c2, 5 relu, 6 add_, 7 mm.
inline Graph feature_graph() {
  Graph g = graph_of_input({2, 4});
  ValueId x = g.inputs[0];
  ValueId w = add_weight(g, ValueKind::Parameter, "w", arange(12, kFloat32).reshape({4, 3}).div(7.0));
  add_weight(g, ValueKind::Constant, "c0", arange(3, kInt64).sub(int64_t{1} << 40));
  add_weight(g, ValueKind::Constant, "c1", full({2}, true, kBool));
  g.values[add_weight(g, ValueKind::Constant, "c2", full({}, -2.5, kFloat16))].wrapped_number = true;
  ValueId r = g.nodes[g.add_node(opid::relu, {x}, {}, {}, 1)].outputs[0];
  ValueId r2 = g.nodes[g.add_node(opid::add, {r, x}, {Attr(Scalar(0.5))}, {r}, 1)].outputs[0];
  ValueId m = g.nodes[g.add_node(opid::mm, {r2, w, jit::kNoValue}, {}, {}, 1)].outputs[0];
  g.values[r].sizes = g.values[r2].sizes = {2, 4};
  g.values[m].sizes = {2, 3};
  g.outputs = {r2, m};
  g.output_structure = "[1, [0, 1]]";
  return g;
}

}  // namespace ember::test
