// The autograd layer of the dispatcher (DESIGN.md): for an op with an input
// that requires grad, run the op below with grad off, then put its backward
// node on the tape: edges to its inputs' nodes, the tensors its derivative
// needs (with their versions), and the node as grad_fn of its float outputs.
// It also sees every view op, recording grad or not, so that views know their
// base (Note [View + in-place] in view_tracking.cpp).
#include "autograd/autograd_meta.h"
#include "autograd/backward_streams.h"
#include "autograd/copy_slices.h"
#include "autograd/nodes.h"
#include "autograd/view_tracking.h"
#include "dispatch/dispatcher.h"
#include "remat/remat.h"

namespace ember::autograd {
namespace {

// Whether the call must be recorded. Stale views among the inputs are brought
// up to date first: their requires_grad may have changed with their base's.
bool must_record(const OpCall& call) {
  if (!is_grad_enabled()) return false;
  bool requires_grad = false;
  for (const Tensor& in : call.inputs) {
    if (!in.defined()) continue;
    refresh_view(in);
    requires_grad |= in.impl()->requires_grad;
  }
  return requires_grad || (call.has_preset_output() && inplace_needs_check(call.outputs[0]));
}

// The outputs of the recorded call get `node` as their history. An in-place
// op on a view rewrites the history of the view's base instead (CopySlices).
void attach_outputs(OpCall& call, const std::shared_ptr<OpNode>& node, const Derivative* d) {
  bool through_view = call.has_preset_output() && view_info(call.outputs[0]) != nullptr;
  node->saved_outputs().resize(call.outputs.size());
  for (size_t j = 0; j < call.outputs.size(); ++j) {
    const Tensor& out = call.outputs[j];
    node->output_meta().push_back(output_meta_of(out));
    if (is_floating(out.dtype())) {
      if (j == 0 && through_view) {
        rebase_history(out, node);
      } else {
        EMBER_CHECK(!through_view, call.name(), ": an in-place operation on a view must have a "
                    "single differentiable output");
        set_history(out, node, static_cast<uint32_t>(j));
      }
    }
    if (d && (d->save_outputs & (1u << j)))  // integer outputs too (indices, masks)
      node->saved_outputs()[j] = SavedTensor(out, true, static_cast<uint32_t>(j));
  }
}

void autograd_layer(OpCall& call) {
  const Derivative* d = find_derivative(call.op);
  bool is_view_op = d && d->is_view;
  if (!must_record(call)) {
    dispatch_backend(call);
    if (is_view_op) record_views(call);
    return;
  }
  for (const Tensor& out : call.outputs) check_inplace(out, call.name());
  if (d && d->non_differentiable) {
    NoGradGuard guard;
    dispatch_backend(call);
    return;
  }
  // An op without a row still records a node: backward through it raises a
  // clear NotImplementedError instead of silently giving no gradient.
  static const Derivative missing{};
  std::shared_ptr<OpNode> node = make_op_node(call, d ? *d : missing);
  {
    NoGradGuard guard;
    // Under a memory budget the runtime keeps how to recompute what backward saves.
    if (remat::active()) remat::record_call(call, is_view_op, node->remat_outputs());
    else dispatch_backend(call);
  }
  attach_outputs(call, node, d);
  if (call.device && call.device->is_cuda()) node->set_forward_stream(current_stream_ref(call.device->index));
  if (is_view_op) record_views(call);
}

// View ops are routed here even when nothing requires grad by register_derivative.
struct InstallLayer {
  InstallLayer() { set_autograd_layer(&autograd_layer); }
} install_layer;

}  // namespace
}  // namespace ember::autograd
