// Activation epilogues (lib/jit/runtime/epilogue.h).
#include "jit/runtime/epilogue.h"

#include "dispatch/op_ids/elementwise.h"
#include "dispatch/op_ids/linalg.h"
#include "ember/autograd.h"
#include "jit/tracer.h"
#include "kernels/elementwise_math.h"

namespace ember::jit::runtime {

namespace {

// Ops whose output is a fresh tensor of their own (never a view of an input).
bool is_producer(OpId op) {
  return op == opid::addmm || op == opid::mm || op == opid::conv2d;
}

template <typename T>
void relu_loop(T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i) p[i] = relu_value(p[i]);
}

}  // namespace

std::vector<int32_t> find_relu_epilogues(const Graph& g, const std::vector<int32_t>& skip) {
  std::vector<int32_t> uses(g.values.size(), 0);
  for (const Node& n : g.nodes) {
    for (ValueId v : n.inputs)
      if (v != kNoValue) ++uses[static_cast<size_t>(v)];
    for (ValueId v : n.preset) ++uses[static_cast<size_t>(v)];
  }
  for (ValueId v : g.outputs) uses[static_cast<size_t>(v)] += 2;  // never modified in place
  auto skipped = [&](size_t n) { return n < skip.size() && skip[n] != -1; };
  std::vector<int32_t> epilogue(g.nodes.size(), -1);
  for (size_t r = 0; r < g.nodes.size(); ++r) {
    const Node& relu = g.nodes[r];
    if (relu.op != opid::relu || skipped(r) || !relu.preset.empty() || relu.inputs.size() != 1 ||
        relu.outputs.size() != 1 || relu.inputs[0] == kNoValue)
      continue;
    const ValueId in = relu.inputs[0];
    const Value& val = g.values[static_cast<size_t>(in)];
    if (val.kind != ValueKind::NodeOutput || uses[static_cast<size_t>(in)] != 1) continue;
    const auto p = static_cast<size_t>(val.node);
    const Node& producer = g.nodes[p];
    if (!is_producer(producer.op) || skipped(p) || !producer.preset.empty() ||
        producer.outputs.size() != 1)
      continue;
    epilogue[p] = static_cast<int32_t>(r);
  }
  return epilogue;
}

bool relu_in_place(const Tensor& t) {
  if (!t.defined() || !t.device().is_cpu() || t.requires_grad() || !t.is_contiguous() ||
      (t.dtype() != kFloat32 && t.dtype() != kFloat64) || is_tracing())
    return false;
  if (t.dtype() == kFloat32) relu_loop(static_cast<float*>(t.data_ptr()), t.numel());
  else relu_loop(static_cast<double*>(t.data_ptr()), t.numel());
  return true;
}

}  // namespace ember::jit::runtime
