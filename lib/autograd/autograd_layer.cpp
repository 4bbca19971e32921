// The autograd layer of the dispatcher (DESIGN.md): for an op with an input
// that requires grad, run the op below with grad off, then put its backward
// node on the tape: edges to its inputs' nodes, the tensors its derivative
// needs (with their versions), and the node as grad_fn of its float outputs.
#include "autograd/autograd_meta.h"
#include "autograd/nodes.h"
#include "dispatch/dispatcher.h"
#include "ember/ops/views.h"

namespace ember::autograd {
namespace {

bool shares_storage(const Tensor& a, const Tensor& b) {
  return a.defined() && b.defined() && a.impl()->storage() == b.impl()->storage();
}

void check_inplace_target(const OpCall& call, const Tensor& out) {
  if (!out.requires_grad()) return;
  AutogradMeta* m = meta_or_null(out);
  bool leaf = !m || !m->grad_fn;
  EMBER_CHECK(!leaf, "a leaf Variable that requires grad is being used in an in-place "
              "operation (", call.name(), "). Wrap it in ember.no_grad() or use an "
              "out-of-place op.");
  EMBER_CHECK_AS(NotImplementedError, !m->is_view_of_grad_tensor, call.name(),
                 ": in-place operations on a view of a tensor that requires grad are not "
                 "supported yet; use an out-of-place op (or .clone() the view first)");
}

std::shared_ptr<OpNode> make_node(OpCall& call, const Derivative& d) {
  auto node = std::make_shared<OpNode>(call.op, d, call.attrs);
  node->next_edges().reserve(call.inputs.size());
  node->input_meta().reserve(call.inputs.size());
  node->saved_inputs().resize(call.inputs.size());
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const Tensor& in = call.inputs[i];
    node->next_edges().push_back(gradient_edge(in));
    OpNode::InputMeta im;
    if (in.defined()) im = {in.sizes(), in.dtype(), true};
    node->input_meta().push_back(std::move(im));
    if (d.save_inputs & (1u << i)) {
      // An in-place op overwrites its self: save the value from before the op.
      bool overwritten = call.has_preset_output() && shares_storage(in, call.outputs[0]);
      node->saved_inputs()[i] = SavedTensor(overwritten ? clone(in) : in, false);
    }
  }
  return node;
}

void autograd_layer(OpCall& call) {
  const Derivative* d = find_derivative(call.op);
  for (const Tensor& out : call.outputs) check_inplace_target(call, out);
  if (d && d->non_differentiable) {
    NoGradGuard guard;
    dispatch_backend(call);
    return;
  }
  // An op without a row still records a node: backward through it raises a
  // clear NotImplementedError instead of silently giving no gradient.
  static const Derivative missing{};
  std::shared_ptr<OpNode> node = make_node(call, d ? *d : missing);
  {
    NoGradGuard guard;
    dispatch_backend(call);
  }
  bool input_requires_grad = false;
  for (const Tensor& in : call.inputs) input_requires_grad |= in.defined() && in.requires_grad();
  node->saved_outputs().resize(call.outputs.size());
  for (size_t j = 0; j < call.outputs.size(); ++j) {
    const Tensor& out = call.outputs[j];
    node->output_meta().push_back(output_meta_of(out));
    bool differentiable = is_floating(out.dtype());
    if (differentiable) set_history(out, node, static_cast<uint32_t>(j));
    if (differentiable && d && d->is_view && input_requires_grad) meta(out).is_view_of_grad_tensor = true;
    if (d && (d->save_outputs & (1u << j)))  // integer outputs too (indices, masks)
      node->saved_outputs()[j] = SavedTensor(out, true, static_cast<uint32_t>(j));
  }
}

struct InstallLayer {
  InstallLayer() { set_autograd_layer(&autograd_layer); }
} install_layer;

}  // namespace
}  // namespace ember::autograd
