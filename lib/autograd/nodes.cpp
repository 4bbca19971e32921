#include "autograd/nodes.h"

#include <algorithm>
#include <vector>

#include <atomic>
#include <cctype>

#include "autograd/autograd_meta.h"
#include "dispatch/dispatcher.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"
#include "kernels/dense_layout.h"

namespace ember::autograd {

// ---- Node ---------------------------------------------------------------------

static std::atomic<uint64_t> g_sequence_nr{0};

Node::Node() : sequence_nr_(g_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

int Node::add_pre_hook(uint32_t output_nr, PreHook hook) {
  int id = next_hook_id();
  pre_hooks_.emplace_back(id, output_nr, std::move(hook));
  return id;
}

void Node::remove_pre_hook(int id) {
  for (auto it = pre_hooks_.begin(); it != pre_hooks_.end(); ++it)
    if (std::get<0>(*it) == id) { pre_hooks_.erase(it); return; }
}

// A hook may replace a gradient, but not with one of another size, dtype or device
// (PyTorch's rule): the engine would otherwise reduce or cast it silently.
static Tensor checked_hook_result(const Tensor& grad, Tensor replaced) {
  if (!replaced.defined()) return grad;
  EMBER_CHECK(replaced.sizes() == grad.sizes(), "hook has changed the size of value (was ",
              shape_str(grad.sizes()), " got ", shape_str(replaced.sizes()), ")");
  EMBER_CHECK(replaced.dtype() == grad.dtype(), "hook has changed the type of value (was ",
              dtype_name(grad.dtype()), " got ", dtype_name(replaced.dtype()), ")");
  EMBER_CHECK(replaced.device() == grad.device(), "hook has changed the device of value (was ",
              grad.device().str(), " got ", replaced.device().str(), ")");
  return replaced;
}

void Node::run_pre_hooks(TensorList& grads) {
  for (auto& [id, nr, hook] : pre_hooks_) {
    if (nr >= grads.size() || !grads[nr].defined()) continue;
    grads[nr] = checked_hook_result(grads[nr], hook(grads[nr]));
  }
}

// ---- the derivative table -----------------------------------------------------

static Derivative g_derivatives[kOpCapacity];
static bool g_has_derivative[kOpCapacity] = {};

void register_derivative(OpId op, Derivative d) {
  g_derivatives[static_cast<int>(op)] = d;
  g_has_derivative[static_cast<int>(op)] = true;
  // Views record their base whether or not anything requires grad (view_tracking.h).
  if (d.is_view) route_to_autograd_layer(op);
}

const Derivative* find_derivative(OpId op) {
  int i = static_cast<int>(op);
  return g_has_derivative[i] ? &g_derivatives[i] : nullptr;
}

// ---- BackwardCtx ------------------------------------------------------------------

Tensor BackwardCtx::grad(size_t i) const {
  return has_grad(i) ? grads_[i] : zeros_for(node_.output_meta().at(i));
}
Tensor BackwardCtx::input(size_t i) const {
  if (i < node_.input_meta().size() && !node_.input_meta()[i].defined) return Tensor();  // optional, left out
  auto& saved = node_.saved_inputs();
  EMBER_CHECK(i < saved.size() && saved[i].defined(), node_.name(), ": input ", i,
              " was not saved by the forward (derivative table row is missing save_inputs)");
  return saved[i].unpack(node_.shared_from_this());
}
Tensor BackwardCtx::output(size_t i) const {
  auto& saved = node_.saved_outputs();
  EMBER_CHECK(i < saved.size() && saved[i].defined(), node_.name(), ": output ", i,
              " was not saved by the forward");
  return saved[i].unpack(node_.shared_from_this());
}
const Attr& BackwardCtx::attr(size_t i) const { return node_.attrs()[i]; }
size_t BackwardCtx::num_attrs() const { return node_.attrs().size(); }
size_t BackwardCtx::num_inputs() const { return node_.input_meta().size(); }
const DimVector& BackwardCtx::input_sizes(size_t i) const { return node_.input_meta().at(i).sizes; }
const DimVector& BackwardCtx::input_strides(size_t i) const { return node_.input_meta().at(i).strides; }
int64_t BackwardCtx::input_storage_offset(size_t i) const {
  return node_.input_meta().at(i).storage_offset;
}
DType BackwardCtx::input_dtype(size_t i) const { return node_.input_meta().at(i).dtype; }
bool BackwardCtx::input_defined(size_t i) const { return node_.input_meta().at(i).defined; }
bool BackwardCtx::needs_grad(size_t i) const {
  return i < node_.next_edges().size() && node_.next_edges()[i].is_valid();
}

// ---- OpNode -------------------------------------------------------------------

TensorList OpNode::apply(TensorList&& grads) {
  // A second backward through a released node fails only where it reads a freed saved
  // tensor (SavedTensor::unpack), as in PyTorch: x.expand(2, 3).sum() saves nothing,
  // so it can be differentiated twice without retain_graph.
  EMBER_CHECK_AS(NotImplementedError, derivative_.fn, "the derivative for '", op_name(op_),
                 "' is not implemented");
  BackwardCtx ctx(*this, grads);
  TensorList out = derivative_.fn(ctx);
  out.resize(next_edges().size());
  return out;
}

std::shared_ptr<OpNode> make_op_node(const OpCall& call, const Derivative& d) {
  auto node = std::make_shared<OpNode>(call.op, d, call.attrs);
  node->next_edges().reserve(call.inputs.size());
  node->input_meta().reserve(call.inputs.size());
  node->saved_inputs().resize(call.inputs.size());
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const Tensor& in = call.inputs[i];
    node->next_edges().push_back(gradient_edge(in));
    OpNode::InputMeta im;
    if (in.defined()) im = {in.sizes(), in.strides(), in.storage_offset(), in.dtype(), true};
    node->input_meta().push_back(std::move(im));
    // The mask has 32 bits; a list op's inputs past those are never saved (UBSan found
    // the shift past 31 for a call with more inputs).
    if (i < 32 && (d.save_inputs & (1u << i))) {
      // An in-place op overwrites its self: save the value from before the op.
      bool overwritten = call.has_preset_output() && in.defined() &&
                         in.impl()->storage() == call.outputs[0].impl()->storage();
      node->saved_inputs()[i] = SavedTensor(overwritten ? clone(in) : in, false);
    }
  }
  return node;
}

std::string OpNode::name() const { return backward_node_name(op_name(op_)); }

void OpNode::release_variables() {
  for (auto& s : saved_inputs_) s.release();
  for (auto& s : saved_outputs_) s.release();
  remat_outputs_.clear();
  released_ = true;
}

std::string backward_node_name(const char* op) {
  std::string name;
  bool upper = true;
  for (const char* p = op; *p; ++p) {
    if (*p == '_') { upper = true; continue; }
    name += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(*p))) : *p;
    upper = false;
  }
  return name + "Backward0";
}

// ---- AccumulateGrad -------------------------------------------------------------

AccumulateGrad::AccumulateGrad(Tensor leaf) : leaf_(std::move(leaf)) {
  output_meta().push_back(output_meta_of(leaf_));
}

Tensor AccumulateGrad::run_leaf_hooks(const Tensor& leaf, Tensor grad) {
  if (AutogradMeta* m = meta_or_null(leaf))
    for (auto& [id, hook] : m->leaf_hooks) grad = checked_hook_result(grad, hook(grad));
  return grad;
}

namespace {

// PyTorch's layout contract for .grad: the leaf's strides where the leaf is dense and
// non-overlapping, contiguous otherwise.
bool obeys_layout_of(const Tensor& grad, const Tensor& leaf) {
  if (!dense_and_non_overlapping(leaf)) return grad.is_contiguous();
  if (!dense_and_non_overlapping(grad)) return false;
  for (int64_t d = 0; d < grad.dim(); ++d)
    if (grad.size(d) != 1 && grad.stride(d) != leaf.stride(d)) return false;
  return true;
}

Tensor copy_with_layout_of(const Tensor& grad, const Tensor& leaf) {
  if (!dense_and_non_overlapping(leaf)) return grad.contiguous().is_same(grad) ? grad.clone() : grad.contiguous();
  Tensor out = empty_strided(IntList(leaf.sizes().begin(), leaf.sizes().end()),
                             IntList(leaf.strides().begin(), leaf.strides().end()),
                             TensorOptions().dtype(grad.dtype()).device(grad.device()));
  out.copy_(grad);
  return out;
}

}  // namespace

TensorList AccumulateGrad::apply(TensorList&& grads) {
  if (grads.empty() || !grads[0].defined()) return {};
  Tensor grad = run_leaf_hooks(leaf_, grads[0]);
  AutogradMeta& m = meta(leaf_);
  if (is_grad_enabled()) {  // create_graph: keep the gradient's own history
    m.grad = m.grad.defined() ? m.grad + grad : grad;
  } else if (!m.grad.defined()) {
    // The gradient may be a tensor the caller still holds (the seed of backward), or
    // a view whose layout a later accumulation cannot write into (sum's backward
    // gives an expanded tensor): .grad gets its own copy then, laid out as the leaf,
    // as in PyTorch.
    m.grad = grad.impl()->use_count() > 2 || !obeys_layout_of(grad, leaf_) ? copy_with_layout_of(grad, leaf_)
                                                                           : detach(grad);
  } else {
    m.grad.add_(grad);
  }
  // A copy: a hook may register or remove hooks.
  if (!m.post_accumulate_hooks.empty()) {
    auto hooks = m.post_accumulate_hooks;
    for (auto& [id, hook] : hooks) hook(leaf_);
  }
  return {};
}

}  // namespace ember::autograd
