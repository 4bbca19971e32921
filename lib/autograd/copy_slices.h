// CopySlices: the history of a base after an in-place op on one of its views
// (PyTorch's node of the same name; Note [View + in-place] in view_tracking.cpp).
//
// The in-place op's own node `fn` maps the gradient of the view's new value
// (its output 0) to gradients of the view's old value (its input `self_nr`)
// and of its other inputs.
// CopySlices receives the gradient of the whole base: the part inside the view
// goes through fn, the part outside passes unchanged, and fn's other inputs
// get fn's gradients.
#pragma once
#include <memory>

#include "autograd/strided_geometry.h"
#include "ember/autograd.h"

namespace ember::autograd {

class CopySlices : public Node {
 public:
  // Edges: base's history (before the op), then fn's other edges in order.
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn, size_t self_nr);
  TensorList apply(TensorList&& grads) override;
  std::string name() const override { return "CopySlices"; }
  void release_variables() override { fn_->release_variables(); }

 private:
  Geometry base_, view_;
  std::shared_ptr<Node> fn_;
  size_t self_nr_;
};

// Records the in-place op whose node is fn, just run on the tracked view
// `view` (fn's input self_nr, its output 0): the base's history becomes
// CopySlices(fn), the view's as_strided of it.
void rebase_history(const Tensor& view, std::shared_ptr<Node> fn, size_t self_nr = 0);

}  // namespace ember::autograd
