#include "autograd/copy_slices.h"

#include <algorithm>

#include "autograd/view_tracking.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"

namespace ember::autograd {
namespace {

IntList to_list(const DimVector& v) { return IntList(v.begin(), v.end()); }

Tensor strided_in(const Tensor& flat, const Geometry& g, int64_t origin) {
  return as_strided(flat, to_list(g.sizes), to_list(g.strides), g.offset - origin);
}

}  // namespace

CopySlices::CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn,
                       size_t self_nr)
    : base_(base), view_(view), fn_(std::move(fn)), self_nr_(self_nr) {
  next_edges().push_back(gradient_edge(base));
  const auto& fn_edges = fn_->next_edges();
  for (size_t i = 0; i < fn_edges.size(); ++i)
    if (i != self_nr_) next_edges().push_back(fn_edges[i]);
  output_meta().push_back(output_meta_of(base));
}

TensorList CopySlices::apply(TensorList&& grads) {
  TensorList out(next_edges().size());
  if (grads.empty() || !grads[0].defined()) return out;
  const Tensor& grad = grads[0];
  // Lay the base's gradient out in a buffer shaped like the storage the base
  // and the view share, so the view's elements are found by their strides.
  int64_t origin = std::min(base_.offset, view_.offset);
  int64_t span = std::max(storage_extent(base_.sizes, base_.strides, base_.offset),
                          storage_extent(view_.sizes, view_.strides, view_.offset)) - origin;
  Tensor flat = zeros({span}, TensorOptions(grad.dtype()).device(grad.device()));
  strided_in(flat, base_, origin).copy_(grad);
  Tensor grad_slice = strided_in(flat, view_, origin);
  TensorList fn_grads(std::max<size_t>(fn_->output_meta().size(), 1));
  fn_grads[0] = grad_slice.clone();  // fn may save its incoming gradient
  TensorList res = fn_->apply(std::move(fn_grads));
  // The view's old values get fn's gradient (none: they were overwritten).
  res.resize(fn_->next_edges().size());
  if (res[self_nr_].defined()) grad_slice.copy_(res[self_nr_]);
  else grad_slice.zero_();
  out[0] = strided_in(flat, base_, origin);
  size_t k = 1;
  for (size_t i = 0; i < res.size(); ++i)
    if (i != self_nr_) out[k++] = std::move(res[i]);
  return out;
}

void rebase_history(const Tensor& view, std::shared_ptr<Node> fn, size_t self_nr) {
  Tensor base = view_info(view)->base;
  EMBER_CHECK(!maybe_overlapping_memory(base.sizes(), base.strides()), "an in-place operation "
              "on a view of a tensor whose elements overlap in memory (such as an expanded tensor, "
              "of shape ", shape_str(base.sizes()), " and strides ", shape_str(base.strides()),
              ") cannot be differentiated; clone() that tensor first.");
  set_history(base, std::make_shared<CopySlices>(base, view, std::move(fn), self_nr), 0);
  regenerate_view_grad_fn(view);
}

}  // namespace ember::autograd
