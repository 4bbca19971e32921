// View tracking: a differentiable view knows its base, so that an in-place
// change through the view rewrites the base's history (copy_slices.h), and a
// view's grad_fn follows in-place changes of its base. See Note [View + in-place]
// in view_tracking.cpp.
#pragma once
#include "autograd/autograd_meta.h"
#include "dispatch/op_call.h"

namespace ember::autograd {

// After a view op ran: its floating-point outputs learn their base and how
// they were made (grad mode on or off).
void record_views(const OpCall& call);
// The views were returned together by `op` (unbind, split): changing one in
// place is refused, as in PyTorch. This also relabels views that `op` made
// through its own custom Function (unbind's shared backward node).
void mark_multi_output_views(const TensorList& views, const char* op);
// t's view information, or nullptr if t is not a tracked view.
ViewInfo* view_info(const Tensor& t);
// If t is a view whose memory was changed in place (through its base or
// another view) since its grad_fn was set, makes its grad_fn an as_strided of
// its base's current history, or refuses where PyTorch refuses.
void refresh_view(const Tensor& t);
// Gives the tracked view t the grad_fn as_strided(base) now.
void regenerate_view_grad_fn(const Tensor& t);
// Before `op` writes `self` in place while recording: refuses in-place changes
// of leaves that require grad, of views of such leaves, and of views that were
// not made the default way.
void check_inplace(const Tensor& self, const char* op);
// Whether an in-place write into `self` must be recorded even though no input
// requires grad: self is a view, made under no_grad, of a tensor that does
// (recording then refuses it).
bool inplace_needs_check(const Tensor& self);
// An in-place view op (t_, squeeze_, as_strided_, ...): self takes the geometry of
// `view`, a view of self just made by the out-of-place op, and with it view's history
// (its grad_fn; and its base, when self was itself a view).
void adopt_view(const Tensor& self, const Tensor& view);

}  // namespace ember::autograd
