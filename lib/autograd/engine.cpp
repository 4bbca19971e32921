// The backward engine: runs the graph's nodes from the roots towards the
// leaves, each once all the gradients flowing into it have arrived, in
// reverse creation order among the ready ones (a topological order).
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd/anomaly_metadata.h"
#include "autograd/autograd_meta.h"
#include "autograd/backward_streams.h"
#include "autograd/grad_utils.h"
#include "autograd/nodes.h"
#include "dispatch/dispatcher.h"
#include "dispatch/profiler_hook.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"

namespace ember::autograd {
namespace {

struct Capture {
  uint32_t input_nr;
  size_t index;
};

struct GraphTask {
  bool keep_graph = false;
  bool create_graph = false;
  std::unordered_map<Node*, int> dependencies;
  std::unordered_map<Node*, TensorList> buffers;
  // autograd.grad: the gradient flowing into (node, input_nr) is captured
  // instead of being passed on; only nodes that lead to a capture run.
  std::unordered_map<Node*, std::vector<Capture>> captures;
  TensorList captured;
  bool only_needed = false;
  std::unordered_set<Node*> needed;
  // Keeps the nodes named by raw pointer above alive for the whole run.
  std::vector<std::shared_ptr<Node>> hold;
  // Note [Backward streams]: the CUDA streams that made each node's incoming
  // gradients, and every stream the pass ran on.
  std::unordered_map<Node*, std::vector<StreamRef>> grad_streams;
  std::vector<StreamRef> used_streams;
};

// `grad` for `n` was made on `stream` (or, when undefined, on its device's current one).
void note_grad_stream(GraphTask& task, Node* n, StreamRef stream, const Tensor& grad) {
  if (!stream.defined()) stream = ambient_stream_of(grad);
  if (!stream.defined()) return;  // a CPU gradient
  std::vector<StreamRef>& streams = task.grad_streams[n];
  for (const StreamRef& s : streams)
    if (s == stream) return;
  streams.push_back(stream);
}

// The stream `node` runs on: its forward op's, or the current one of its gradients' device.
StreamRef stream_for(GraphTask& task, Node* node) {
  StreamRef s = node->forward_stream();
  if (!s.defined() && task.grad_streams.empty()) return s;  // a CPU-only pass: one branch
  auto it = task.grad_streams.find(node);
  if (!s.defined() && it != task.grad_streams.end() && !it->second.empty())
    s = current_stream_ref(it->second.front().device);
  if (s.defined()) {
    if (it != task.grad_streams.end()) wait_for_streams(s, it->second);
    bool seen = false;
    for (const StreamRef& u : task.used_streams) seen = seen || u == s;
    if (!seen) task.used_streams.push_back(s);
  }
  if (it != task.grad_streams.end()) task.grad_streams.erase(it);
  return s;
}

void count_dependencies(GraphTask& task, const std::vector<Node*>& roots) {
  // Each node's edges count once, however many roots it is (the outputs of one
  // multi-output op, e.g. unbind's, share their node).
  std::unordered_set<Node*> seen(roots.begin(), roots.end());
  std::vector<Node*> stack(seen.begin(), seen.end());
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges()) {
      if (!e.is_valid()) continue;
      Node* next = e.function.get();
      ++task.dependencies[next];
      if (seen.insert(next).second) stack.push_back(next);
    }
  }
}

// Marks the nodes from which a captured node can be reached.
bool mark_needed(GraphTask& task, Node* n, std::unordered_map<Node*, bool>& memo) {
  if (auto it = memo.find(n); it != memo.end()) return it->second;
  memo[n] = false;  // a graph has no cycles, but guard the recursion anyway
  bool needed = task.captures.count(n) > 0;
  for (const Edge& e : n->next_edges())
    if (e.is_valid() && mark_needed(task, e.function.get(), memo)) needed = true;
  memo[n] = needed;
  if (needed) task.needed.insert(n);
  return needed;
}

void add_to_buffer(GraphTask& task, Node* n, uint32_t input_nr, Tensor grad) {
  TensorList& buf = task.buffers[n];
  if (buf.size() <= input_nr) buf.resize(std::max<size_t>(input_nr + 1, n->output_meta().size()));
  if (!buf[input_nr].defined()) buf[input_nr] = std::move(grad);
  else buf[input_nr] = buf[input_nr] + grad;  // out of place: the old one may be shared
}

// A gradient must match what its receiving node expects: reduce what was
// broadcast, cast the dtype, and refuse anything else with a clear message.
Tensor fit_gradient(const Node& producer, size_t index, Tensor grad, const Edge& edge) {
  const auto& metas = edge.function->output_meta();
  if (edge.input_nr >= metas.size()) return grad;
  const Node::OutputMeta& want = metas[edge.input_nr];
  if (grad.sizes() != want.sizes) {
    EMBER_CHECK(is_expandable_to(want.sizes, grad.sizes()), "Function ", producer.name(),
                " returned an invalid gradient at index ", index, " - got ",
                shape_str(grad.sizes()), " but expected shape compatible with ",
                shape_str(want.sizes));
    grad = sum_to(grad, want.sizes);
  }
  if (grad.dtype() != want.dtype) grad = grad.to(want.dtype);
  return grad;
}

void run(GraphTask& task, const std::vector<Node*>& roots) {
  auto later_first = [](Node* a, Node* b) { return a->sequence_nr() < b->sequence_nr(); };
  std::priority_queue<Node*, std::vector<Node*>, decltype(later_first)> ready(later_first);
  // A root that another root's graph also reaches (backward((u, v)) with v made from
  // u) waits for its dependencies like any node: only roots without any start.
  std::unordered_set<Node*> queued;
  for (Node* r : roots)
    if (task.dependencies[r] == 0 && queued.insert(r).second) ready.push(r);
  AutoGradMode mode(task.create_graph);

  while (!ready.empty()) {
    Node* node = ready.top();
    ready.pop();
    TensorList grads = std::move(task.buffers[node]);
    task.buffers.erase(node);
    grads.resize(std::max(grads.size(), node->output_meta().size()));
    node->run_pre_hooks(grads);

    if (auto it = task.captures.find(node); it != task.captures.end()) {
      for (const Capture& c : it->second) {
        Tensor g = c.input_nr < grads.size() ? grads[c.input_nr] : Tensor();
        if (auto* acc = dynamic_cast<AccumulateGrad*>(node); acc && g.defined())
          g = AccumulateGrad::run_leaf_hooks(acc->leaf(), g);
        task.captured[c.index] = g;
      }
    }
    bool execute = !task.only_needed || task.needed.count(node);
    if (task.only_needed && dynamic_cast<AccumulateGrad*>(node)) execute = false;
    bool any_grad = false;
    for (const Tensor& g : grads) any_grad = any_grad || g.defined();

    StreamRef stream = stream_for(task, node);
    TensorList outputs;
    {
      NodeStreamGuard on_stream(stream);
      if (execute && any_grad) {
        // The op profiler's range per node (ops its formula dispatches nest in it).
        std::optional<profiler::RecordFunction> node_range;
        if (__builtin_expect(profiler::detail::enabled(), 0))
          node_range.emplace(node->name(), profiler::EventKind::BackwardNode);
        if (!is_anomaly_enabled()) {
          outputs = node->apply(std::move(grads));
        } else {
          try {
            outputs = node->apply(std::move(grads));
            check_backward_outputs(*node, outputs);
          } catch (...) {
            report_backward_error(*node);
            throw;
          }
        }
      }
    }
    if (!task.keep_graph) node->release_variables();

    auto& edges = node->next_edges();
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (!e.is_valid()) continue;
      Node* next = e.function.get();
      if (i < outputs.size() && outputs[i].defined()) {
        NodeStreamGuard on_stream(stream);  // fitting (sum_to, casts) queues on the node's stream
        Tensor g = fit_gradient(*node, i, outputs[i], e);
        // A sum with a gradient from another stream waits for that stream first.
        if (!task.grad_streams.empty())
          if (auto it = task.grad_streams.find(next); it != task.grad_streams.end())
            wait_for_streams(stream.defined() ? stream : ambient_stream_of(g), it->second);
        note_grad_stream(task, next, stream, g);
        add_to_buffer(task, next, e.input_nr, std::move(g));
      }
      if (--task.dependencies[next] == 0 && queued.insert(next).second) ready.push(next);
    }
  }
}

// The roots of a backward: the outputs' edges and their initial gradients.
void seed_roots(GraphTask& task, const TensorList& outputs, const TensorList& grad_outputs,
                std::vector<Node*>& roots, const char* api) {
  EMBER_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(), api, ": got ",
              outputs.size(), " tensors and ", grad_outputs.size(), " gradients");
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    EMBER_CHECK(out.defined(), api, ": tensor ", i, " is undefined");
    Edge e = gradient_edge(out);
    EMBER_CHECK(e.is_valid(), "element ", i, " of tensors does not require grad and does not "
                "have a grad_fn");
    Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined()) {
      EMBER_CHECK(out.numel() == 1, "grad can be implicitly created only for scalar outputs "
                  "(got a tensor of shape ", shape_str(out.sizes()), ")");
      g = ones_like(out);
    } else {
      EMBER_CHECK(g.sizes() == out.sizes(), "Mismatch in shape: grad_output[", i,
                  "] has a shape of ", shape_str(g.sizes()), " and output[", i,
                  "] has a shape of ", shape_str(out.sizes()), ".");
      // A gradient of another dtype is cast to the output's, as torch's engine does.
      if (g.dtype() != out.dtype()) g = g.to(out.dtype());
    }
    note_grad_stream(task, e.function.get(), StreamRef{}, g);
    add_to_buffer(task, e.function.get(), e.input_nr, g);
    roots.push_back(e.function.get());
  }
}

void capture_inputs(GraphTask& task, const TensorList& inputs, const char* api) {
  task.captured.resize(inputs.size());
  task.only_needed = true;
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(inputs[i].defined(), api, ": input ", i, " is undefined");
    Edge e = gradient_edge(inputs[i]);
    EMBER_CHECK(e.is_valid(), "One of the differentiated Tensors does not require grad");
    task.hold.push_back(e.function);
    task.captures[e.function.get()].push_back({e.input_nr, i});
  }
}

TensorList execute(const TensorList& outputs, const TensorList& grad_outputs,
                   const TensorList& inputs, bool keep_graph, bool create_graph, const char* api) {
  // A trace records forward computations; a backward pass inside one would be
  // baked into the graph as ordinary ops.
  EMBER_CHECK_AS(NotImplementedError, !dispatch_state().tracing, "ember.jit.trace: ", api,
                 "() cannot run while tracing (only forward computations can be traced)");
  GraphTask task;
  task.keep_graph = keep_graph;
  task.create_graph = create_graph;
  std::vector<Node*> roots;
  for (const Tensor& t : outputs)
    if (Edge e = gradient_edge(t); e.is_valid()) task.hold.push_back(e.function);
  seed_roots(task, outputs, grad_outputs, roots, api);
  if (!inputs.empty()) capture_inputs(task, inputs, api);
  count_dependencies(task, roots);
  if (task.only_needed) {
    std::unordered_map<Node*, bool> memo;
    for (Node* r : roots) mark_needed(task, r, memo);
  }
  run(task, roots);
  join_current_streams(task.used_streams);
  return std::move(task.captured);
}

}  // namespace

void accumulate_grad(const Tensor& t, const Tensor& grad) {
  AccumulateGrad(t).apply(TensorList{grad});
}

void backward(const TensorList& tensors, const TensorList& grad_tensors,
              std::optional<bool> retain_graph, bool create_graph, const TensorList& inputs) {
  bool keep = retain_graph.value_or(create_graph);
  TensorList grads = execute(tensors, grad_tensors, inputs, keep, create_graph, "backward");
  // backward(inputs=...) accumulates into exactly those tensors' .grad.
  for (size_t i = 0; i < inputs.size(); ++i)
    if (grads[i].defined()) {
      AutoGradMode mode(create_graph);
      AccumulateGrad(inputs[i]).apply(TensorList{grads[i]});
    }
}

TensorList grad(const TensorList& outputs, const TensorList& inputs,
                const TensorList& grad_outputs, std::optional<bool> retain_graph,
                bool create_graph, bool allow_unused) {
  EMBER_CHECK(!inputs.empty(), "grad requires at least one input");
  bool keep = retain_graph.value_or(create_graph);
  TensorList grads = execute(outputs, grad_outputs, inputs, keep, create_graph, "grad");
  for (const Tensor& g : grads)
    EMBER_CHECK(allow_unused || g.defined(), "One of the differentiated Tensors appears to not "
                "have been used in the graph. Set allow_unused=True if this is the desired "
                "behavior.");
  return grads;
}

}  // namespace ember::autograd
