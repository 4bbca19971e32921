#include "autograd/autograd_meta.h"

#include <atomic>

#include "autograd/anomaly_metadata.h"
#include "autograd/nodes.h"
#include "autograd/view_tracking.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"

namespace ember::autograd {

AutogradMeta& meta(const Tensor& t) {
  auto& m = t.impl()->autograd;
  if (!m) m = std::make_shared<AutogradMeta>();
  return *m;
}

AutogradMeta* meta_or_null(const Tensor& t) { return t.impl()->autograd.get(); }

std::shared_ptr<Node> grad_fn_of(const Tensor& t) {
  refresh_view(t);
  AutogradMeta* m = meta_or_null(t);
  return m ? m->grad_fn : nullptr;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined()) return {};
  refresh_view(t);
  if (!t.impl()->requires_grad) return {};
  AutogradMeta& m = meta(t);
  if (m.grad_fn) return {m.grad_fn, m.output_nr};
  std::shared_ptr<Node> acc = m.grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    m.grad_accumulator = acc;
  }
  return {acc, 0};
}

void set_history(const Tensor& t, std::shared_ptr<Node> fn, uint32_t output_nr) {
  AutogradMeta& m = meta(t);
  if (m.retains_grad && m.grad_fn) m.grad_fn->remove_pre_hook(m.retain_grad_hook);
  if (is_anomaly_enabled()) record_forward_trace(fn);
  m.grad_fn = std::move(fn);
  m.output_nr = output_nr;
  if (m.view) m.view->version = t.version();  // the new history is current
  t.impl()->requires_grad = true;
  if (m.retains_grad) add_retain_grad_hook(t);
}

void add_retain_grad_hook(const Tensor& t) {
  AutogradMeta& m = meta(t);
  std::weak_ptr<AutogradMeta> weak = t.impl()->autograd;
  m.retain_grad_hook = m.grad_fn->add_pre_hook(m.output_nr, [weak](const Tensor& g) {
    if (auto mm = weak.lock()) {
      if (!mm->grad.defined()) mm->grad = g.clone();
      else mm->grad = mm->grad + g;
    }
    return Tensor();
  });
}

int next_hook_id() {
  static std::atomic<int> id{0};
  return ++id;
}

Node::OutputMeta output_meta_of(const Tensor& t) { return {t.sizes(), t.dtype(), t.device()}; }

Tensor zeros_for(const Node::OutputMeta& m) {
  return zeros(IntList(m.sizes.begin(), m.sizes.end()), TensorOptions(m.dtype).device(m.device));
}

Tensor alias_without_history(const Tensor& t) {
  const TensorImpl& impl = *t.impl();
  auto alias = make_intrusive<TensorImpl>(impl.storage(), impl.storage_offset(), impl.sizes(),
                                          impl.strides(), impl.dtype());
  alias->is_wrapped_number = impl.is_wrapped_number;
  return Tensor(std::move(alias));
}

}  // namespace ember::autograd
