// Hooks that run after a leaf's gradient has been accumulated into its .grad
// (Tensor.register_post_accumulate_grad_hook): the hook gets the leaf itself, with
// .grad already updated, and returns nothing. Optimizers that step each parameter
// as soon as its gradient is ready (to free gradients early) use them.
#pragma once
#include <functional>

#include "ember/tensor.h"

namespace ember::autograd {

using PostAccumulateGradHook = std::function<void(const Tensor&)>;

// Registers `hook` on `leaf` (a leaf tensor that requires grad); returns a handle
// for remove_post_accumulate_grad_hook. Hooks run in registration order.
int register_post_accumulate_grad_hook(const Tensor& leaf, PostAccumulateGradHook hook);
void remove_post_accumulate_grad_hook(const Tensor& leaf, int handle);

}  // namespace ember::autograd
