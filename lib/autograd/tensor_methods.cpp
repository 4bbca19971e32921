// Tensor's autograd methods (include/ember/methods/autograd.inc).
#include "autograd/autograd_meta.h"
#include "autograd/nodes.h"
#include "autograd/view_tracking.h"
#include "ember/inference_mode.h"
#include "ember/ops/elementwise.h"

namespace ember {

using namespace autograd;

Tensor& Tensor::requires_grad_(bool requires_grad) {
  EMBER_CHECK(!requires_grad || is_floating(dtype()), "only Tensors of floating point dtype "
              "can require gradients (got ", dtype_name(dtype()), ")");
  EMBER_CHECK(!requires_grad || !impl()->is_inference || is_inference_mode_enabled(),
              "Setting requires_grad=True on inference tensor outside InferenceMode is not "
              "allowed.");
  AutogradMeta* m = meta_or_null(*this);
  if (!requires_grad && m && m->grad_fn)
    throw Error("you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().");
  impl()->requires_grad = requires_grad;
  return *this;
}

Tensor Tensor::grad() const {
  AutogradMeta* m = meta_or_null(*this);
  return m ? m->grad : Tensor();
}

void Tensor::set_grad(const Tensor& g) {
  if (g.defined()) {
    EMBER_CHECK(g.sizes() == sizes(), "assigned grad has data of a different size: ",
                shape_str(g.sizes()), " vs ", shape_str(sizes()));
    EMBER_CHECK(g.dtype() == dtype(), "assigned grad has data of a different type: ",
                dtype_name(g.dtype()), " vs ", dtype_name(dtype()));
    EMBER_CHECK(g.device() == device(), "assigned grad has data located on a different device");
  }
  meta(*this).grad = g;
}

std::shared_ptr<Node> Tensor::grad_fn() const { return grad_fn_of(*this); }

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

uint32_t Tensor::output_nr() const {
  AutogradMeta* m = meta_or_null(*this);
  return m ? m->output_nr : 0;
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph,
                      const TensorList& inputs) const {
  autograd::backward({*this}, gradient.defined() ? TensorList{gradient} : TensorList{},
                     retain_graph, create_graph, inputs);
}

void Tensor::retain_grad() const {
  refresh_view(*this);
  EMBER_CHECK(requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  AutogradMeta& m = meta(*this);
  if (!m.grad_fn || m.retains_grad) return;  // leaves keep .grad anyway
  m.retains_grad = true;
  add_retain_grad_hook(*this);
}

bool Tensor::retains_grad() const {
  AutogradMeta* m = meta_or_null(*this);
  return m && m->retains_grad;
}

int Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  refresh_view(*this);
  EMBER_CHECK(requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& m = meta(*this);
  if (m.grad_fn) return m.grad_fn->add_pre_hook(m.output_nr, std::move(hook));
  int id = next_hook_id();
  m.leaf_hooks.emplace_back(id, std::move(hook));
  return id;
}

void Tensor::remove_hook(int handle) const {
  AutogradMeta* m = meta_or_null(*this);
  if (!m) return;
  if (m->grad_fn) m->grad_fn->remove_pre_hook(handle);
  for (auto it = m->leaf_hooks.begin(); it != m->leaf_hooks.end(); ++it)
    if (it->first == handle) { m->leaf_hooks.erase(it); return; }
}

bool Tensor::is_view() const { return view_info(*this) != nullptr; }

Tensor Tensor::_base() const {
  const ViewInfo* info = view_info(*this);
  return info ? info->base : Tensor();
}

Tensor& Tensor::detach_() {
  // A view's history is tied to its base's (Note [View + in-place]).
  EMBER_CHECK(!is_view(), "Can't detach views in-place. Use detach() instead.");
  if (AutogradMeta* m = meta_or_null(*this)) {
    m->grad_fn.reset();
    m->output_nr = 0;
  }
  impl()->requires_grad = false;
  return *this;
}

}  // namespace ember
