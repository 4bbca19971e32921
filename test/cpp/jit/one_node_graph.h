// A graph of one node built by hand, for the invoker tests (test_invokers_*.cpp):
// the node's tensor inputs are graph inputs (an undefined tensor is left out as
// kNoValue), and run() sends the same tensors through the op's invoker on the CPU.
#pragma once
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "jit/graph.h"
#include "jit/op_invoker.h"

namespace ember::jit::test {

struct OneNodeGraph {
  Graph graph;
  std::vector<Tensor> inputs, preset;
  int32_t node = 0;

  // in_place: the node writes into its first input (the x.op_() form).
  OneNodeGraph(OpId op, std::vector<Tensor> ins, std::vector<Attr> attrs, size_t n_outputs,
               bool in_place = false)
      : inputs(std::move(ins)) {
    std::vector<ValueId> ids;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].defined()) {
        ids.push_back(kNoValue);
        continue;
      }
      Value v;
      v.kind = ValueKind::Input;
      v.name = "x" + std::to_string(i);
      v.index = static_cast<int32_t>(graph.inputs.size());
      v.dtype = inputs[i].dtype();
      v.sizes = inputs[i].sizes();
      ids.push_back(graph.add_value(v));
      graph.inputs.push_back(ids.back());
    }
    std::vector<ValueId> written;
    if (in_place) {
      written.push_back(ids.at(0));
      preset.push_back(inputs.at(0));
    }
    node = graph.add_node(op, ids, std::move(attrs), written, n_outputs);
  }

  // Output i as the trace saw it (what fresh-output nodes allocate from).
  void set_traced(size_t i, const Tensor& like) {
    Value& v = graph.values[static_cast<size_t>(graph.nodes[static_cast<size_t>(node)].outputs.at(i))];
    v.dtype = like.dtype();
    v.sizes = like.sizes();
  }

  std::vector<Tensor> run() const {
    InvokeFn fn = invoker_for(graph.nodes[static_cast<size_t>(node)].op);
    REQUIRE(fn != nullptr);
    InvokeArgs args(graph, node, inputs, preset, kCPU);
    return fn(args);
  }
};

}  // namespace ember::jit::test
