// ember::jit: traced models in C++ (DESIGN.md, Tracer and Serialization).
//
//   auto model = ember::jit::load("m.ember");           // no Python needed
//   ember::Tensor y = model(x);                           // one input, one output
//   std::vector<ember::Tensor> ys = model.forward({x});   // the general form
//
// A Module holds a traced graph and its named parameters, buffers and constants.
// Calling it runs the graph's ops through the ordinary dispatcher, on the device
// its tensors are on and under autograd like any other code. Files are written
// by Module::save (Python: traced.save) and are safe to load from anywhere.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember::jit {

struct Graph;    // lib/jit/graph.h
struct RunPlan;  // lib/jit/interpreter.h

// The names of a traced module's parameters and buffers, for trace(): a tensor
// listed here becomes a named value of the graph (saved under that name), any
// other tensor the trace meets becomes an anonymous constant.
using NamedTensorList = std::vector<std::pair<std::string, Tensor>>;

class Module {
 public:
  Module() = default;
  explicit Module(std::shared_ptr<Graph> graph);

  // Runs the graph; returns its outputs in order (nested tuples flattened).
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) const;
  // One input, one output.
  Tensor operator()(const Tensor& input) const;

  // The SSA listing of the graph.
  std::string graph_str() const;
  // Parameters and buffers by name; constants are not included.
  std::map<std::string, Tensor> named_parameters() const;
  // Moves parameters and constants (and where factory ops put their results).
  Module& to(Device device);
  Device device() const;
  // Writes the model file atomically (Python: traced.save).
  void save(const std::string& path) const;

  const Graph& graph() const;
  Graph& graph();
  bool defined() const { return graph_ != nullptr; }

 private:
  std::shared_ptr<Graph> graph_;
  Device device_ = kCPU;
  // Worked out on the first forward; dropped when the graph is handed out for
  // editing (graph()), so a pass never leaves a stale one.
  mutable std::shared_ptr<const RunPlan> plan_;
};

// Reads a model file (checked in full before anything runs); map_location moves
// its tensors to a device.
Module load(const std::string& path, std::optional<Device> map_location = std::nullopt);

// Traces fn on example inputs: every dispatched op it runs becomes a node.
// `params` names the tensors of a module's parameters and buffers.
Module trace(const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& fn,
             const std::vector<Tensor>& example_inputs, const NamedTensorList& params = {});

}  // namespace ember::jit
