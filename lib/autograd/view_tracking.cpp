// Note [View + in-place]
// A view shares its base's memory, so an in-place op through a view changes
// the base too, and an in-place op on the base changes every view. Autograd
// follows this as PyTorch does:
//  - Every floating-point output of a view op records its base (the tensor that
//    owns the memory; a view of a view records the first base), whether or not
//    anything requires grad, and whether grad mode was on (record_views).
//  - An in-place op on a view while recording makes its node the history of the
//    *base*, wrapped in a CopySlices node that routes the base's gradient
//    through it (copy_slices.cpp), and the view's new grad_fn is as_strided of
//    the base's new history.
//  - Any in-place write bumps the storage's version. A view whose grad_fn was
//    set at an older version is stale: the next time its history is read
//    (refresh_view, called by gradient_edge and grad_fn_of) its grad_fn becomes
//    as_strided of its base's current history. So later uses of either the view
//    or the base see the in-place op.
//  - A view made under no_grad of a tensor that requires grad is a leaf that
//    requires grad (PyTorch's quirk, kept for compatibility).
//  - Refused, as in PyTorch: an in-place op on a view of a leaf that requires
//    grad; on a view made under no_grad (or when such a view is used after its
//    base changed); on one of several views returned together (unbind, split);
//    on a view returned by a custom Function.
#include "autograd/view_tracking.h"

#include "autograd/nodes.h"
#include "dispatch/args/core.h"
#include "dispatch/op_ids/core.h"

namespace ember::autograd {
namespace {

// PyTorch's wording: "is being modified inplace" when the write goes through
// this very view, "its base or another view of its base has been" otherwise.
[[noreturn]] void refuse(const Tensor& t, const ViewInfo& info, bool indirect) {
  AutogradMeta* m = meta_or_null(t);
  std::shared_ptr<Node> fn = m ? m->grad_fn : nullptr;
  std::string modified = indirect ? "its base or another view of its base has been"
                                  : "is being";
  std::string msg;
  switch (info.creation) {
    case CreationMeta::kNoGradMode:
      msg = "A view was created in no_grad mode and " + modified + " modified inplace with grad "
            "mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. "
            "You can clarify your code by moving both the view and the inplace either both inside "
            "the no_grad block (if you don't want the inplace to be tracked) or both outside (if you "
            "want the inplace to be tracked).";
      break;
    case CreationMeta::kMultiOutput:
      msg = detail::str("Output ", info.creator_output, " of ", info.creator, " is a view and ",
                        modified, " modified inplace. This view is the output of a function that "
                        "returns multiple views. Such functions do not allow the output views to be "
                        "modified inplace. You should replace the inplace operation by an "
                        "out-of-place one.");
      break;
    default:  // kInCustomFunction
      msg = detail::str("Output ", m ? m->output_nr : 0, " of ", fn ? fn->name() : "a custom Function",
                        " is a view and ", modified, " modified inplace. This view was created "
                        "inside a custom Function (or because an input was returned as-is) and the "
                        "autograd logic to handle view+inplace would override the custom backward "
                        "associated with the custom Function, leading to incorrect gradients. This "
                        "behavior is forbidden. You can fix this by cloning the output of the "
                        "custom Function.");
  }
  throw Error(msg);
}

}  // namespace

ViewInfo* view_info(const Tensor& t) {
  AutogradMeta* m = t.defined() ? meta_or_null(t) : nullptr;
  return m && m->view ? &*m->view : nullptr;
}

void record_views(const OpCall& call) {
  const Tensor& self = call.inputs[0];
  const ViewInfo* parent = view_info(self);
  CreationMeta made = is_grad_enabled() ? CreationMeta::kDefault : CreationMeta::kNoGradMode;
  for (const Tensor& out : call.outputs) {
    if (!is_floating(out.dtype())) continue;
    ViewInfo info;
    info.base = parent ? parent->base : self;
    info.creation = made;
    // A view of a restricted view stays restricted (PyTorch's propagate_creation_meta).
    if (parent && made == CreationMeta::kDefault) {
      info.creation = parent->creation;
      info.creator = parent->creator;
      info.creator_output = parent->creator_output;
    }
    info.version = out.version();
    // A view made under no_grad of a tensor that requires grad requires grad
    // itself, as a leaf (as in PyTorch, whose views take requires_grad from their
    // base; there the leaf's gradient goes nowhere, here into its .grad).
    if (made == CreationMeta::kNoGradMode && info.base.requires_grad())
      out.impl()->requires_grad = true;
    meta(out).view = std::move(info);
  }
}

void mark_multi_output_views(const TensorList& views, const char* op) {
  for (size_t i = 0; i < views.size(); ++i) {
    ViewInfo* info = view_info(views[i]);
    if (!info || (info->creation != CreationMeta::kDefault &&
                  info->creation != CreationMeta::kInCustomFunction))
      continue;
    info->creation = CreationMeta::kMultiOutput;
    info->creator = op;
    info->creator_output = static_cast<uint32_t>(i);
  }
}

void refresh_view(const Tensor& t) {
  AutogradMeta* m = meta_or_null(t);
  if (!m || !m->view) return;
  ViewInfo& info = *m->view;
  if (info.version == t.version()) return;
  // Nothing to differentiate through (yet): the view stays as it is.
  if (!m->grad_fn && !info.base.requires_grad()) return;
  if (info.creation != CreationMeta::kDefault) refuse(t, info, /*indirect=*/true);
  regenerate_view_grad_fn(t);
}

void regenerate_view_grad_fn(const Tensor& t) {
  const Tensor& base = view_info(t)->base;
  static const Derivative* as_strided_row = find_derivative(opid::as_strided);
  EMBER_CHECK(as_strided_row, "autograd: the derivative row of as_strided is missing");
  OpCall call(opid::as_strided, {base},
              AsStridedArgs{.size = t.sizes(), .stride = t.strides(), .storage_offset = t.storage_offset()}
                  .attrs());
  std::shared_ptr<OpNode> node = make_op_node(call, *as_strided_row);
  node->output_meta().push_back(output_meta_of(t));
  set_history(t, std::move(node), 0);
}

void check_inplace(const Tensor& self, const char* op) {
  AutogradMeta* m = meta_or_null(self);
  if (m && m->view) {
    if (m->view->creation != CreationMeta::kDefault) refuse(self, *m->view, /*indirect=*/false);
    // The view may require grad through its base or on its own (requires_grad_ on a view).
    const Tensor& base = m->view->base;
    bool requires_grad = self.requires_grad() || base.requires_grad();
    EMBER_CHECK(!(requires_grad && base.is_leaf()), "a view of a leaf Variable that requires "
                "grad is being used in an in-place operation (", op, ").");
    return;
  }
  EMBER_CHECK(!self.requires_grad() || (m && m->grad_fn), "a leaf Variable that requires grad "
              "is being used in an in-place operation (", op, "). Wrap it in ember.no_grad() or "
              "use an out-of-place op.");
}

void adopt_view(const Tensor& self, const Tensor& view) {
  self.impl()->set_geometry(view.sizes(), view.strides(), view.storage_offset());
  AutogradMeta* from = meta_or_null(view);
  if (!from) return;
  if (from->grad_fn) set_history(self, from->grad_fn, from->output_nr);
  // A view of a non-view records self as its base: self stays a non-view.
  if (from->view && !from->view->base.is_same(self)) meta(self).view = from->view;
}

bool inplace_needs_check(const Tensor& self) {
  const ViewInfo* info = view_info(self);
  return info && info->creation != CreationMeta::kDefault && info->base.requires_grad();
}

}  // namespace ember::autograd
