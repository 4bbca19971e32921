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
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/nn/module_holder.h"
#include "ember/tensor.h"

namespace ember::nn {
class Module;
}

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

using TraceFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// A dynamic size of an input dim (Python: ember.jit.Dim, as torch.export.Dim).
// Dims with one name are one size: the graph checks on every call that they agree.
struct Dim {
  explicit Dim(std::string name, int64_t min = 0,
               int64_t max = std::numeric_limits<int64_t>::max());  // checks name and range
  std::string name;
  int64_t min, max;
};
// One entry per example input: its dynamic dims (dim -> Dim); {} keeps an input static.
using DynamicShapes = std::vector<std::map<int64_t, Dim>>;

// The implementations of trace() below. The overloads are templates so that a
// module holder (whose call operator deduces its return type) never gets tried as
// a std::function: that would be a hard error, not an overload that drops out.
Module trace_function(const TraceFn& fn, const std::vector<Tensor>& example_inputs,
                      const NamedTensorList& params);
Module trace_function(const TraceFn& fn, const std::vector<Tensor>& example_inputs,
                      const DynamicShapes& dynamic_shapes, const NamedTensorList& params);
// A C++ nn module's forward: its parameters and buffers are named in the graph by
// their dotted names (and the buffers restored after the extra traces).
Module trace_module(nn::Module& module, const TraceFn& forward,
                    const std::vector<Tensor>& example_inputs, const DynamicShapes& dynamic_shapes);

namespace trace_detail {
template <typename T>
concept ModuleHolderType = requires { typename T::ContainedType; } &&
                           std::is_base_of_v<nn::ModuleHolder<typename T::ContainedType>, T>;
template <typename F>
concept TraceFunction = (!ModuleHolderType<std::remove_cvref_t<F>>) && std::is_constructible_v<TraceFn, F>;
}  // namespace trace_detail

// Traces fn on example inputs: every dispatched op it runs becomes a node.
// `params` names the tensors of a module's parameters and buffers.
template <trace_detail::TraceFunction F>
Module trace(F&& fn, const std::vector<Tensor>& example_inputs, const NamedTensorList& params = {}) {
  return trace_function(TraceFn(std::forward<F>(fn)), example_inputs, params);
}

// Traces fn with dynamic shapes (docs/jit.md, "Dynamic shapes, from C++"): as Python's
// ember.jit.trace(..., dynamic_shapes=...), fn is traced at the example sizes and
// again at a design of other sizes (the inputs' data tiled or cut to them), and
// every size and integer attribute that follows the Dims (x.size(0) in a view) is
// fitted as an expression of them (lib/jit/symbolic_fit.h). The graph runs at any
// size in the Dims' ranges and checks its guards on every call. A model whose code
// needs the traced size (fails, or records other ops, at another size) is a
// ValueError that names the size. Tensors in `params` are restored after the extra
// traces (a module's buffers), and so is the default generator's state.
//
//   jit::Dim batch("batch", 1, 4096);
//   jit::Module m = jit::trace(fn, {x}, {{{0, batch}}});   // x's dim 0 is dynamic
template <trace_detail::TraceFunction F>
Module trace(F&& fn, const std::vector<Tensor>& example_inputs, const DynamicShapes& dynamic_shapes,
             const NamedTensorList& params = {}) {
  return trace_function(TraceFn(std::forward<F>(fn)), example_inputs, dynamic_shapes, params);
}

// A C++ nn module (a holder such as nn::Linear or one made by EMBER_MODULE) whose
// forward takes one tensor.
template <trace_detail::ModuleHolderType Holder>
Module trace(Holder& module, const std::vector<Tensor>& example_inputs,
             const DynamicShapes& dynamic_shapes = {}) {
  return trace_module(*module, [&module](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    EMBER_CHECK_VALUE(in.size() == 1, "jit::trace: a module's forward takes one input here, got ",
                      in.size(), " (trace a function of the inputs instead)");
    return {module->forward(in[0])};
  }, example_inputs, dynamic_shapes);
}

}  // namespace ember::jit
