// AutogradMeta: what a tensor carries for autograd (its .grad, the node that
// made it, hooks), and the helpers that read and set it.
//
// Note [Requires grad]: TensorImpl::requires_grad is true exactly when the
// tensor is a leaf that requires grad or has a grad_fn. The dispatcher reads
// only that flag, so a tensor outside autograd costs one branch.
#pragma once
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "ember/autograd.h"

namespace ember {

struct AutogradMeta {
  Tensor grad;
  std::shared_ptr<autograd::Node> grad_fn;
  std::weak_ptr<autograd::Node> grad_accumulator;  // leaves: their AccumulateGrad node
  uint32_t output_nr = 0;
  bool retains_grad = false;
  int retain_grad_hook = -1;
  // Hooks of a leaf (those of a non-leaf live on its grad_fn as pre-hooks).
  std::vector<std::pair<int, std::function<Tensor(const Tensor&)>>> leaf_hooks;
  // Set on the output of a view op whose base requires grad.
  bool is_view_of_grad_tensor = false;
};

namespace autograd {

AutogradMeta& meta(const Tensor& t);           // created on first use
AutogradMeta* meta_or_null(const Tensor& t);
// Where gradients for t go; invalid if t does not require grad.
Edge gradient_edge(const Tensor& t);
// Makes t the output `output_nr` of fn (t then requires grad).
void set_history(const Tensor& t, std::shared_ptr<Node> fn, uint32_t output_nr);
int next_hook_id();
Node::OutputMeta output_meta_of(const Tensor& t);

}  // namespace autograd
}  // namespace ember
