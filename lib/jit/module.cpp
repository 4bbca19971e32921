// jit::Module (include/ember/jit.h): a traced graph with its tensors, and the
// C++ trace(). Saving and loading are in lib/jit/model_io.cpp.
#include "ember/jit.h"

#include <atomic>

#include "jit/interpreter.h"
#include "jit/tracer.h"

namespace ember::jit {

Module::Module(std::shared_ptr<Graph> graph) : graph_(std::move(graph)) {
  EMBER_CHECK(graph_, "jit::Module: no graph");
  // The module's device is its tensors' (a graph without tensors runs on the CPU).
  for (const auto& [name, t] : graph_->tensors)
    if (t.defined()) { device_ = t.device(); break; }
}

const Graph& Module::graph() const {
  EMBER_CHECK(graph_, "jit::Module: the module is empty (default-constructed)");
  return *graph_;
}
Graph& Module::graph() {
  EMBER_CHECK(graph_, "jit::Module: the module is empty (default-constructed)");
  std::atomic_store(&plan_, std::shared_ptr<const RunPlan>());
  return *graph_;
}

std::vector<Tensor> Module::forward(const std::vector<Tensor>& inputs) const {
  // Threads may call forward at once: the first plan stored is the one all of them
  // use (with its caches of shapes and memory plans); a thread that lost the race
  // drops its own.
  std::shared_ptr<const RunPlan> plan = std::atomic_load(&plan_);
  if (!plan) {
    auto fresh = std::make_shared<const RunPlan>(make_run_plan(graph()));
    plan = std::atomic_compare_exchange_strong(&plan_, &plan, fresh) ? fresh : plan;
  }
  return run_graph(graph(), inputs, device_, *plan);
}

Tensor Module::operator()(const Tensor& input) const {
  std::vector<Tensor> out = forward({input});
  EMBER_CHECK(out.size() == 1, "jit::Module: the traced function returns ", out.size(),
              " tensors; call forward() to get them all");
  return out[0];
}

std::string Module::graph_str() const { return graph().str(); }

std::map<std::string, Tensor> Module::named_parameters() const {
  std::map<std::string, Tensor> out;
  for (const Value& v : graph().values)
    if (v.kind == ValueKind::Parameter) out[v.name] = graph().tensors.at(v.name);
  return out;
}

Module& Module::to(Device device) {
  for (auto& [name, t] : graph().tensors)
    if (t.device() != device) t = t.detach().to(device).requires_grad_(t.requires_grad());
  device_ = device;
  return *this;
}

Device Module::device() const { return device_; }

Module trace_function(const TraceFn& fn, const std::vector<Tensor>& example_inputs,
                      const NamedTensorList& params) {
  begin_trace(example_inputs, params);
  std::vector<Tensor> outputs;
  try {
    outputs = fn(example_inputs);
  } catch (...) {
    abort_trace();
    throw;
  }
  std::string structure = "[";
  for (size_t i = 0; i < outputs.size(); ++i) structure += (i ? ", " : "") + std::to_string(i);
  structure += "]";
  return Module(end_trace(outputs, outputs.size() == 1 ? "0" : structure));
}

}  // namespace ember::jit
