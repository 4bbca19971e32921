// The tracer layer (lib/jit/tracer.h).
#include "jit/tracer.h"

#include <iostream>
#include <unordered_map>

#include "dispatch/dispatcher.h"
#include "jit/op_invoker.h"
#include "jit/symbolic_fit.h"

namespace ember::jit {

namespace {

struct TracingState {
  std::shared_ptr<Graph> graph = std::make_shared<Graph>();
  std::unordered_map<const TensorImpl*, ValueId> env;
  // Every tensor the trace has mapped stays alive until the trace ends, so that
  // no TensorImpl address is reused by an unrelated tensor meanwhile.
  std::vector<Tensor> keep_alive;
  // The module's parameters and buffers by TensorImpl: each becomes a named
  // value when an op first reads it, so unused ones stay out of the graph.
  std::unordered_map<const TensorImpl*, std::pair<std::string, Tensor>> params;
  std::unordered_map<std::string, bool> param_names;
  int64_t n_constants = 0;
};

thread_local std::unique_ptr<TracingState> t_state;

void default_warning(const std::string& message) {
  std::cerr << "TracerWarning: " << message << "\n";
}
TracerWarningFn g_warning_handler = default_warning;

void describe(Value& v, const Tensor& t) {
  v.dtype = t.dtype();
  v.sizes = t.sizes();
}

void bind(TracingState& st, const Tensor& t, ValueId id) {
  st.env[t.impl()] = id;
  st.keep_alive.push_back(t);
}

// The value of a tensor an op reads: known, or a new constant (a snapshot, so a
// later in-place write does not change what the graph starts from).
ValueId value_of(TracingState& st, const Tensor& t) {
  auto it = st.env.find(t.impl());
  if (it != st.env.end()) {
    // wrapped_scalar() flags its tensor after the fill_ that made it returned.
    if (t.impl()->is_wrapped_number) st.graph->values[static_cast<size_t>(it->second)].wrapped_number = true;
    return it->second;
  }
  if (auto p = st.params.find(t.impl()); p != st.params.end()) {
    Value v;
    v.kind = ValueKind::Parameter;
    v.name = p->second.first;
    describe(v, t);
    st.graph->tensors[v.name] = t;
    ValueId id = st.graph->add_value(std::move(v));
    bind(st, t, id);
    return id;
  }
  Value v;
  v.kind = ValueKind::Constant;
  do v.name = "c" + std::to_string(st.n_constants++);
  while (st.param_names.count(v.name));
  describe(v, t);
  Tensor snapshot;
  {
    // The snapshot is not part of the trace.
    NoTraceGuard not_traced;
    snapshot = t.detach().clone();
  }
  snapshot.impl()->is_wrapped_number = v.wrapped_number = t.impl()->is_wrapped_number;
  st.graph->tensors[v.name] = snapshot;
  ValueId id = st.graph->add_value(std::move(v));
  bind(st, t, id);
  return id;
}

// A tensor the trace knows: an input, an op's result, a parameter or buffer.
bool is_known(const TracingState& st, const Tensor& t) {
  return st.env.count(t.impl()) || st.params.count(t.impl());
}

bool is_fresh_output(const TracingState& st, const OpCall& call, const Tensor& t) {
  if (is_known(st, t)) return false;
  for (const Tensor& out : call.outputs)
    if (out.defined() && out.impl() == t.impl()) return true;
  return false;
}

void tracer_layer(OpCall& call) {
  TracingState& st = *t_state;
  if (!invoker_for(call.op))
    throw NotImplementedError(detail::str(
        "ember.jit.trace: the op '", call.name(),
        "' cannot be traced (it has no invoker in lib/jit/invokers): trace the forward "
        "computation only, without backward passes or optimizer steps"));
  // Inputs and written tensors are looked up before the op runs: an in-place op
  // gives its tensor a new value.
  std::vector<ValueId> inputs;
  inputs.reserve(call.inputs.size());
  for (const Tensor& t : call.inputs)
    inputs.push_back(!t.defined() || is_fresh_output(st, call, t) ? kNoValue : value_of(st, t));
  std::vector<ValueId> preset;
  for (const Tensor& t : call.outputs)
    if (t.defined() && is_known(st, t)) preset.push_back(value_of(st, t));
  {
    // Ops that the layers below run for this one are not part of the trace.
    NoTraceGuard below;
    dispatch_below_tracer(call);
  }
  std::vector<Attr> attrs(call.attrs.begin(), call.attrs.end());
  int32_t index = st.graph->add_node(call.op, std::move(inputs), std::move(attrs),
                                     std::move(preset), call.outputs.size());
  const Node& node = st.graph->nodes[static_cast<size_t>(index)];
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    const Tensor& out = call.outputs[i];
    ValueId id = node.outputs[i];
    if (!out.defined()) continue;
    describe(st.graph->values[static_cast<size_t>(id)], out);
    bind(st, out, id);
  }
}

void host_read(const char* what) {
  g_warning_handler(detail::str(
      "reading a tensor's value on the host (", what,
      ") while tracing records it as a constant: the traced graph might not generalize to "
      "other inputs (item(), bool(), int(), float(), tolist(), numpy() and Python control "
      "flow on tensors all read values)"));
}

}  // namespace

void set_tracer_warning_handler(TracerWarningFn fn) {
  g_warning_handler = fn ? fn : default_warning;
}

bool is_tracing() { return t_state != nullptr; }

void begin_trace(const std::vector<Tensor>& inputs, const NamedTensorList& params) {
  EMBER_CHECK(!t_state, "ember.jit.trace: a trace is already active on this thread");
  set_tracer_layer(tracer_layer);
  set_host_read_hook(host_read);
  auto st = std::make_unique<TracingState>();
  Graph& g = *st->graph;
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(inputs[i].defined(), "ember.jit.trace: example input ", i, " is undefined");
    if (st->env.count(inputs[i].impl())) {  // the same tensor passed twice
      g.inputs.push_back(st->env[inputs[i].impl()]);
      continue;
    }
    Value v;
    v.kind = ValueKind::Input;
    v.name = i == 0 ? "x" : "x" + std::to_string(i);
    v.index = static_cast<int32_t>(i);
    describe(v, inputs[i]);
    ValueId id = g.add_value(std::move(v));
    g.inputs.push_back(id);
    bind(*st, inputs[i], id);
  }
  auto& names = st->param_names;
  for (const auto& [name, t] : params) {
    // A tensor shared under two names (tied weights) keeps its first name.
    if (!t.defined() || st->env.count(t.impl()) || st->params.count(t.impl())) continue;
    EMBER_CHECK(!name.empty() && !names[name], "ember.jit.trace: parameter name '", name,
                "' is empty or used twice");
    names[name] = true;
    st->params[t.impl()] = {name, t};
  }
  t_state = std::move(st);
  dispatch_state().tracing = true;
}

std::shared_ptr<Graph> end_trace(const std::vector<Tensor>& outputs,
                                 const std::string& output_structure) {
  EMBER_CHECK(t_state, "ember.jit.trace: no trace is active");
  dispatch_state().tracing = false;
  std::unique_ptr<TracingState> st = std::move(t_state);
  Graph& g = *st->graph;
  for (size_t i = 0; i < outputs.size(); ++i) {
    EMBER_CHECK_TYPE(outputs[i].defined(), "ember.jit.trace: output ", i,
                     " of the traced function is not a tensor");
    g.outputs.push_back(value_of(*st, outputs[i]));
  }
  g.output_structure = output_structure;
  mark_data_dependent_sizes(g);
  return st->graph;
}

void abort_trace() {
  dispatch_state().tracing = false;
  t_state.reset();
}

}  // namespace ember::jit
