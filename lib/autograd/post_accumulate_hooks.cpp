// Tensor.register_post_accumulate_grad_hook (ember/autograd_hooks.h). The hooks
// live in the leaf's AutogradMeta and AccumulateGrad runs them (nodes.cpp).
#include "autograd/autograd_meta.h"
#include "ember/autograd_hooks.h"
#include "ember/error.h"

namespace ember::autograd {

int register_post_accumulate_grad_hook(const Tensor& leaf, PostAccumulateGradHook hook) {
  EMBER_CHECK(leaf.defined(), "register_post_accumulate_grad_hook: the tensor is undefined");
  EMBER_CHECK(leaf.requires_grad(), "cannot register a hook on a tensor that doesn't require "
              "gradient");
  EMBER_CHECK(leaf.is_leaf(), "post accumulate grad hooks cannot be registered on non-leaf "
              "tensors");
  int id = next_hook_id();
  meta(leaf).post_accumulate_hooks.emplace_back(id, std::move(hook));
  return id;
}

void remove_post_accumulate_grad_hook(const Tensor& leaf, int handle) {
  AutogradMeta* m = meta_or_null(leaf);
  if (!m) return;
  auto& hooks = m->post_accumulate_hooks;
  for (auto it = hooks.begin(); it != hooks.end(); ++it)
    if (it->first == handle) {
      hooks.erase(it);
      return;
    }
}

}  // namespace ember::autograd
