// In-place reuse of dying inputs (lib/jit/runtime/inplace_reuse.h).
#include "jit/runtime/inplace_reuse.h"

#include <algorithm>

#include "autograd/autograd_meta.h"
#include "dispatch/op_schema.h"
#include "ember/autograd.h"

namespace ember::jit::runtime {

namespace {

bool static_candidate(const Graph& g, const Node& node, const std::vector<ValueId>& dying) {
  if (!is_op(node.op)) return false;
  const OpSchema& schema = op_schema(node.op);
  if (!schema.has_tag(kTagPointwise) || schema.has_tag(kTagRandom) ||
      !(schema.variants & kVariantInplace) || schema.invoker != InvokerKind::Generated)
    return false;
  if (!node.preset.empty() || node.outputs.size() != 1 || node.inputs.empty() ||
      !node.sym_attrs.empty())
    return false;
  const ValueId self = node.inputs[0];
  if (self == kNoValue || std::count(node.inputs.begin(), node.inputs.end(), self) != 1) return false;
  if (std::find(dying.begin(), dying.end(), self) == dying.end()) return false;
  const Value& in = g.values[static_cast<size_t>(self)];
  const Value& out = g.values[static_cast<size_t>(node.outputs[0])];
  return in.kind == ValueKind::NodeOutput && !in.wrapped_number && !out.wrapped_number &&
         in.dtype == out.dtype && in.sizes == out.sizes;
}

// Whether self holds the only handle on its memory, besides the run's environment and
// the node's argument list: no other view of it, nor any other tensor on its storage.
// A view keeps its base alive (autograd's view tracking): that base must then be held
// by the view alone.
bool sole_owner(const Tensor& self) {
  if (self.impl()->use_count() > 2) return false;
  int handles = 1;
  if (const AutogradMeta* m = autograd::meta_or_null(self); m && m->view && m->view->base.defined()) {
    const Tensor& base = m->view->base;
    if (base.impl()->use_count() != 1) return false;
    if (base.impl()->storage().get() == self.impl()->storage().get()) handles = 2;
  }
  return self.impl()->storage().use_count() == handles;
}

// Whether `other` broadcasts to `sizes` without growing it.
bool broadcasts_into(const DimVector& other, const DimVector& sizes) {
  if (other.size() > sizes.size()) return false;
  const size_t lead = sizes.size() - other.size();
  for (size_t d = 0; d < other.size(); ++d)
    if (other[d] != 1 && other[d] != sizes[lead + d]) return false;
  return true;
}

}  // namespace

InplaceReuse::InplaceReuse(const Graph& g, const std::vector<std::vector<ValueId>>& release_after) {
  candidate_.assign(g.nodes.size(), 0);
  bool any = false;
  for (size_t n = 0; n < g.nodes.size() && n < release_after.size(); ++n)
    if (static_candidate(g, g.nodes[n], release_after[n])) candidate_[n] = any = 1;
  if (!any) return;
  auto copy = std::make_shared<Graph>(g);
  copy->tensors.clear();  // invokers read nodes and values only; the run supplies tensors
  for (size_t n = 0; n < candidate_.size(); ++n)
    if (candidate_[n]) copy->nodes[n].preset = {copy->nodes[n].inputs[0]};
  in_place_ = std::move(copy);
}

size_t InplaceReuse::num_candidates() const {
  return static_cast<size_t>(std::count(candidate_.begin(), candidate_.end(), 1));
}

bool InplaceReuse::qualifies(size_t n, const std::vector<Tensor>& args) const {
  const Node& node = in_place_->nodes[n];
  const Tensor& self = args[0];
  if (!self.defined() || !self.is_contiguous()) return false;
  if (!sole_owner(self)) return false;
  const bool grad = is_grad_enabled();
  for (size_t i = 0; i < args.size(); ++i) {
    const Tensor& t = args[i];
    if (!t.defined()) continue;
    // Dtypes as traced keep the traced promotion: the result has self's dtype.
    if (t.dtype() != in_place_->values[static_cast<size_t>(node.inputs[i])].dtype) return false;
    if (grad && t.requires_grad()) return false;
    if (t.device() != self.device()) return false;
    if (i > 0 && !broadcasts_into(t.sizes(), self.sizes())) return false;
  }
  return true;
}

}  // namespace ember::jit::runtime
