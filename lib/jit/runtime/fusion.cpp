// Pointwise fusion (lib/jit/runtime/fusion.h): finding the groups once per graph, and
// handing a group's program to the device's evaluator (kernels/fused_pointwise.h; the
// CPU's is lib/cpu/fused_pointwise_run.cpp) after the checks the dispatcher's upper
// layers would make.
#include "jit/runtime/fusion.h"

#include <algorithm>
#include <array>
#include <climits>
#include <memory>
#include <new>

#include "dispatch/op_schema.h"
#include "ember/autocast.h"
#include "ember/autograd.h"
#include "ember/ops/factories.h"
#include "jit/tracer.h"
#include "kernels/elementwise_setup.h"

namespace ember::jit::runtime {

using kernels::fused::broadcast_into;
using kernels::fused::LowerFn;
using kernels::fused::numel_of;
using kernels::fused::OperandForm;
using kernels::fused::operand_form;
using kernels::fused::pointwise_lowering;
using kernels::fused::PointwiseFormula;

namespace {

// A group stops growing at this many nodes (its registers must fit kMaxRegisters).
constexpr size_t kMaxGroupNodes = 64;

bool fusable_dtype(DType t) { return t == kFloat32 || t == kFloat64; }

// ---- finding the groups ------------------------------------------------------------------

struct Lowered {
  const PointwiseFormula* formula = nullptr;
  double params[4] = {0, 0, 0, 0};
};

// The instruction a node becomes, judged on its traced types; formula null when the node
// cannot be fused. Run-time tensors are checked again by run_fused.
Lowered lower_node(const Graph& g, const Node& n) {
  Lowered l;
  if (!n.preset.empty() || n.outputs.size() != 1 || draws_random_numbers(n.op)) return l;
  // Attributes that are expressions of the graph's symbols are known only per run.
  if (!n.sym_attrs.empty()) return l;
  if (!op_schema(n.op).has_tag(kTagPointwise)) return l;
  LowerFn lower = pointwise_lowering(n.op);
  if (!lower) return l;
  const PointwiseFormula* f = lower(n.attrs, l.params);
  if (!f || n.inputs.size() != static_cast<size_t>(f->arity)) return l;
  const Value& out = g.values[static_cast<size_t>(n.outputs[0])];
  if (!fusable_dtype(out.dtype) || out.sizes.empty()) return l;
  bool has_full = false;
  for (ValueId v : n.inputs) {
    if (v == kNoValue) return l;
    const Value& in = g.values[static_cast<size_t>(v)];
    OperandForm form = operand_form(in.sizes, out.sizes);
    if (form == OperandForm::Other) return l;
    if (form == OperandForm::Full && in.sizes.size() == out.sizes.size()) has_full = true;
    if (in.dtype != out.dtype && in.sizes.size() != 0) return l;  // eager would promote
  }
  if (!has_full) return l;
  l.formula = f;
  return l;
}

struct WorkGroup {
  std::vector<int32_t> nodes;
  bool open = true;   // later nodes may still join
  bool alive = true;  // false once merged into another group
};

FusedGroup build_program(const Graph& g, std::vector<int32_t> nodes,
                         const std::vector<Lowered>& lowered,
                         const std::vector<std::vector<int32_t>>& users,
                         const std::vector<char>& is_graph_output) {
  std::sort(nodes.begin(), nodes.end());
  FusedGroup group;
  group.nodes = nodes;
  std::vector<char> member(g.nodes.size(), 0);
  for (int32_t n : nodes) member[static_cast<size_t>(n)] = 1;
  // Registers: the group's inputs first (in order of first use), then one per instruction.
  std::vector<int32_t> reg_of(g.values.size(), -1);
  for (int32_t n : nodes)
    for (ValueId v : g.nodes[static_cast<size_t>(n)].inputs) {
      const Value& val = g.values[static_cast<size_t>(v)];
      bool inside = val.kind == ValueKind::NodeOutput && member[static_cast<size_t>(val.node)];
      if (!inside && reg_of[static_cast<size_t>(v)] < 0) {
        reg_of[static_cast<size_t>(v)] = static_cast<int32_t>(group.inputs.size());
        group.inputs.push_back(v);
      }
    }
  int32_t next = static_cast<int32_t>(group.inputs.size());
  for (int32_t n : nodes) {
    const Node& node = g.nodes[static_cast<size_t>(n)];
    const Lowered& l = lowered[static_cast<size_t>(n)];
    FusedInstr ins;
    ins.formula = l.formula;
    ins.node = n;
    std::copy(l.params, l.params + 4, ins.params);
    for (size_t i = 0; i < node.inputs.size(); ++i) ins.args[i] = reg_of[static_cast<size_t>(node.inputs[i])];
    ins.result = next++;
    ValueId out = node.outputs[0];
    reg_of[static_cast<size_t>(out)] = ins.result;
    group.program.push_back(ins);
    bool escapes = is_graph_output[static_cast<size_t>(out)] != 0;
    for (int32_t u : users[static_cast<size_t>(out)]) escapes = escapes || !member[static_cast<size_t>(u)];
    if (escapes) {
      group.outputs.push_back(out);
      group.output_registers.push_back(ins.result);
    }
  }
  return group;
}

// Every value a group reads must still be there when the group runs, at its last node.
// The runtime releases a value after its last reader, and a fused member's releases wait
// for its group's last node (fusion.h); so a group whose input's last reader is a node
// outside it, placed before the group's last node (or a member of a group that runs
// before it), is cut in two just before that release. Repeated until no cut is needed
// (a cut moves the head's releases earlier, which may affect another group).
void keep_inputs_alive(const Graph& g, const std::vector<std::vector<int32_t>>& users,
                       const std::vector<char>& is_graph_output,
                       std::vector<std::vector<int32_t>>& groups) {
  std::vector<int32_t> last_use(g.values.size(), -1);
  for (size_t v = 0; v < g.values.size(); ++v)
    if (!is_graph_output[v])
      for (int32_t u : users[v]) last_use[v] = std::max(last_use[v], u);
  for (bool cut = true; cut;) {
    cut = false;
    std::vector<int32_t> group_of(g.nodes.size(), -1);
    for (size_t k = 0; k < groups.size(); ++k)
      if (groups[k].size() >= 2)
        for (int32_t n : groups[k]) group_of[static_cast<size_t>(n)] = static_cast<int32_t>(k);
    for (size_t k = 0; k < groups.size() && !cut; ++k) {
      std::vector<int32_t>& members = groups[k];
      if (members.size() < 2) continue;
      for (int32_t n : members) {
        int32_t release = INT32_MAX;
        for (ValueId v : g.nodes[static_cast<size_t>(n)].inputs) {
          int32_t u = last_use[static_cast<size_t>(v)];
          if (u < 0 || group_of[static_cast<size_t>(u)] == static_cast<int32_t>(k)) continue;
          int32_t other = group_of[static_cast<size_t>(u)];
          release = std::min(release, other >= 0 ? groups[static_cast<size_t>(other)].back() : u);
        }
        if (release < members.back()) {
          // The members from the release on form a group of their own (which runs where
          // the whole did, so the rules above hold for it too).
          auto at = std::lower_bound(members.begin(), members.end(), release);
          std::vector<int32_t> tail(at, members.end());
          members.erase(at, members.end());
          if (tail.size() >= 2) groups.push_back(std::move(tail));
          cut = true;
          break;
        }
      }
    }
  }
}

}  // namespace

std::vector<FusedGroup> find_fusion_groups(const Graph& g) {
  const size_t nn = g.nodes.size(), nv = g.values.size();
  std::vector<Lowered> lowered(nn);
  for (size_t n = 0; n < nn; ++n) lowered[n] = lower_node(g, g.nodes[n]);

  std::vector<WorkGroup> groups;
  std::vector<int32_t> group_of_node(nn, -1);
  // The open group that defines value v, or -1.
  auto open_group_of = [&](ValueId v) -> int32_t {
    if (v == kNoValue) return -1;
    const Value& val = g.values[static_cast<size_t>(v)];
    if (val.kind != ValueKind::NodeOutput || val.node < 0) return -1;
    int32_t gi = group_of_node[static_cast<size_t>(val.node)];
    return gi >= 0 && groups[static_cast<size_t>(gi)].open ? gi : -1;
  };
  auto same_type = [&](int32_t a, int32_t b) {
    const Value& va = g.values[static_cast<size_t>(g.nodes[static_cast<size_t>(a)].outputs[0])];
    const Value& vb = g.values[static_cast<size_t>(g.nodes[static_cast<size_t>(b)].outputs[0])];
    return va.dtype == vb.dtype && va.sizes == vb.sizes;
  };

  for (size_t n = 0; n < nn; ++n) {
    const Node& node = g.nodes[n];
    const int32_t self = static_cast<int32_t>(n);
    int32_t joined = -1;
    if (lowered[n].formula) {
      // Join (and merge) the open groups that define this node's inputs, when their
      // values have this node's type; else start a group.
      for (ValueId v : node.inputs) {
        int32_t gi = open_group_of(v);
        if (gi < 0 || gi == joined || !same_type(groups[static_cast<size_t>(gi)].nodes.front(), self)) continue;
        size_t size_now = joined < 0 ? 0 : groups[static_cast<size_t>(joined)].nodes.size();
        if (size_now + groups[static_cast<size_t>(gi)].nodes.size() + 1 > kMaxGroupNodes) continue;
        if (joined < 0) {
          joined = gi;
          continue;
        }
        WorkGroup& into = groups[static_cast<size_t>(joined)];
        WorkGroup& from = groups[static_cast<size_t>(gi)];
        for (int32_t m : from.nodes) group_of_node[static_cast<size_t>(m)] = joined;
        into.nodes.insert(into.nodes.end(), from.nodes.begin(), from.nodes.end());
        from.nodes.clear();
        from.alive = false;
      }
      if (joined < 0) {
        joined = static_cast<int32_t>(groups.size());
        groups.push_back(WorkGroup{});
      }
      WorkGroup& mine = groups[static_cast<size_t>(joined)];
      mine.nodes.push_back(self);
      group_of_node[n] = joined;
      if (mine.nodes.size() >= kMaxGroupNodes) mine.open = false;
    }
    // A group whose value this node reads without being a member is done: a member
    // after this node would leave the node reading a value not computed yet.
    for (ValueId v : node.inputs) {
      int32_t gi = open_group_of(v);
      if (gi >= 0 && gi != joined) groups[static_cast<size_t>(gi)].open = false;
    }
    for (ValueId v : node.preset) {
      int32_t gi = open_group_of(v);
      if (gi >= 0) groups[static_cast<size_t>(gi)].open = false;
    }
    // A write may change a tensor a group reads: the group must run before it.
    if (!node.preset.empty())
      for (WorkGroup& w : groups) w.open = false;
  }

  std::vector<std::vector<int32_t>> users(nv);
  for (size_t n = 0; n < nn; ++n) {
    for (ValueId v : g.nodes[n].inputs)
      if (v != kNoValue) users[static_cast<size_t>(v)].push_back(static_cast<int32_t>(n));
    for (ValueId v : g.nodes[n].preset) users[static_cast<size_t>(v)].push_back(static_cast<int32_t>(n));
  }
  std::vector<char> is_graph_output(nv, 0);
  for (ValueId v : g.outputs) is_graph_output[static_cast<size_t>(v)] = 1;

  std::vector<std::vector<int32_t>> member_lists;
  for (WorkGroup& w : groups)
    if (w.alive && w.nodes.size() >= 2) {
      std::sort(w.nodes.begin(), w.nodes.end());
      member_lists.push_back(w.nodes);
    }
  keep_inputs_alive(g, users, is_graph_output, member_lists);

  std::vector<FusedGroup> result;
  for (const std::vector<int32_t>& members : member_lists)
    if (members.size() >= 2) result.push_back(build_program(g, members, lowered, users, is_graph_output));
  std::sort(result.begin(), result.end(),
            [](const FusedGroup& a, const FusedGroup& b) { return a.nodes.back() < b.nodes.back(); });
  return result;
}

bool run_fused(const FusedGroup& group, const Graph& /*g*/, std::vector<Tensor>& env, Device device) {
  if (group.program.empty() || group.outputs.size() != group.output_registers.size()) return false;
  // Work the dispatcher would do per op: recording a trace, autocasting, autograd.
  if (is_tracing() || autocast::is_enabled(DeviceType::CPU)) return false;
  const bool grad = is_grad_enabled();
  std::vector<const Tensor*> ins;
  ins.reserve(group.inputs.size());
  for (ValueId v : group.inputs) {
    if (v < 0 || static_cast<size_t>(v) >= env.size()) return false;
    const Tensor& t = env[static_cast<size_t>(v)];
    if (!t.defined() || t.device() != device || (grad && t.requires_grad())) return false;
    ins.push_back(&t);
  }
  // One floating dtype for every input with dims: a 0-dim input (a number) never
  // changes it, as in type promotion; one with dims of another dtype would.
  bool have_dtype = false;
  DType dtype = kFloat32;
  DimVector shape;
  for (const Tensor* t : ins) {
    if (t->dim() > 0) {
      if (!have_dtype) dtype = t->dtype();
      else if (t->dtype() != dtype) return false;
      have_dtype = true;
    }
    if (!broadcast_into(shape, t->sizes())) return false;
  }
  if (!have_dtype || !fusable_dtype(dtype) || shape.empty()) return false;
  // Every instruction must produce the group's shape: one operand of that shape at least.
  {
    const size_t ni = ins.size();
    for (const FusedInstr& k : group.program) {
      DimVector out;
      for (int a = 0; a < k.formula->arity; ++a) {
        size_t r = static_cast<size_t>(k.args[a]);
        if (!broadcast_into(out, r < ni ? ins[r]->sizes() : shape)) return false;
      }
      if (out != shape) return false;
    }
  }
  kernels::fused::FusedRunner run = kernels::fused::fused_runner(device.type);
  std::vector<Tensor> outs;
  if (!run || !run(group.program, group.output_registers, ins, shape, dtype, outs)) return false;
  if (outs.size() != group.outputs.size()) return false;
  for (size_t o = 0; o < group.outputs.size(); ++o) env[static_cast<size_t>(group.outputs[o])] = std::move(outs[o]);
  return true;
}

}  // namespace ember::jit::runtime
