// AutogradMeta: what a tensor carries for autograd (its .grad, the node that
// made it, hooks, the base it is a view of), and the helpers that read and set it.
//
// Note [Requires grad]: TensorImpl::requires_grad is true exactly when the
// tensor is a leaf that requires grad or has a grad_fn. The dispatcher reads
// only that flag (and whether a tensor has an AutogradMeta at all), so a
// tensor outside autograd costs one branch. The flag of a view can lag behind
// its base (Note [View + in-place] in view_tracking.cpp): refresh_view() brings
// it up to date, and everything here that reads a grad_fn calls it first.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "ember/autograd.h"

namespace ember {

namespace autograd {

// How a view came to be; an in-place change through (or under) a view that
// was not made the default way is refused, as in PyTorch.
enum class CreationMeta : uint8_t {
  kDefault,           // a view op run with grad mode on
  kNoGradMode,        // made with grad mode off
  kMultiOutput,       // one of several views returned together (unbind, split)
  kInCustomFunction,  // returned by a custom Function's forward
};

// What a differentiable view knows about where its memory comes from.
struct ViewInfo {
  Tensor base;  // the tensor that owns the memory (never itself a tracked view)
  CreationMeta creation = CreationMeta::kDefault;
  // The storage version at which the view's grad_fn was last set: a later
  // in-place write through the base or any other view makes it stale.
  uint64_t version = 0;
  const char* creator = nullptr;  // kMultiOutput: the op that returned the views
  uint32_t creator_output = 0;    // kMultiOutput: which of them this is
};

}  // namespace autograd

struct AutogradMeta {
  Tensor grad;
  std::shared_ptr<autograd::Node> grad_fn;
  std::weak_ptr<autograd::Node> grad_accumulator;  // leaves: their AccumulateGrad node
  uint32_t output_nr = 0;
  bool retains_grad = false;
  int retain_grad_hook = -1;
  // Hooks of a leaf (those of a non-leaf live on its grad_fn as pre-hooks).
  std::vector<std::pair<int, std::function<Tensor(const Tensor&)>>> leaf_hooks;
  // Hooks of a leaf that run after its .grad was updated (ember/autograd_hooks.h).
  std::vector<std::pair<int, std::function<void(const Tensor&)>>> post_accumulate_hooks;
  // Set on every floating-point output of a view op (view_tracking.cpp).
  std::optional<autograd::ViewInfo> view;
};

namespace autograd {

AutogradMeta& meta(const Tensor& t);           // created on first use
AutogradMeta* meta_or_null(const Tensor& t);
// Where gradients for t go; invalid if t does not require grad.
Edge gradient_edge(const Tensor& t);
// t's grad_fn, regenerated first if t is a stale view.
std::shared_ptr<Node> grad_fn_of(const Tensor& t);
// Makes t the output `output_nr` of fn (t then requires grad). If t retains
// its grad, the hook that does so moves to fn (so .grad is the gradient of
// t's newest value, after an in-place op too, as in PyTorch).
void set_history(const Tensor& t, std::shared_ptr<Node> fn, uint32_t output_nr);
// The pre-hook on t's grad_fn that keeps t's gradient in t.grad (retain_grad).
void add_retain_grad_hook(const Tensor& t);
int next_hook_id();
Node::OutputMeta output_meta_of(const Tensor& t);
// The gradient of an output no gradient reached.
Tensor zeros_for(const Node::OutputMeta& m);
// A new handle on t's memory and geometry without autograd state: detach() without
// the dispatcher (it would record a view, only to drop it), for the hot paths that
// save tensors (saved_tensor.cpp, lib/remat). It keeps whether t is a wrapped Python
// number, which type promotion reads.
Tensor alias_without_history(const Tensor& t);

}  // namespace autograd
}  // namespace ember
