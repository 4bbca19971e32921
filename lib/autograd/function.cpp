// Custom Functions (ember/autograd_function.h): the context forward fills, the
// node backward runs as, and how forward's outputs are put on the tape. The
// Python ember.autograd.Function uses all of it (csrc/autograd.cpp).
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>

#include "autograd/autograd_meta.h"
#include "autograd/copy_slices.h"
#include "autograd/function_node.h"
#include "autograd/view_tracking.h"
#include "ember/ops/views.h"

namespace ember::autograd {

// ---- SavedValue ---------------------------------------------------------------

double SavedValue::to_double() const {
  if (const int64_t* i = std::get_if<int64_t>(&v_)) return static_cast<double>(*i);
  return get<double>("double");
}

void SavedValue::throw_wrong_type(const char* wanted) const {
  static const char* const names[] = {"None", "bool", "int", "double", "string", "int list", "Tensor"};
  throw TypeError(detail::str("saved_data: expected a ", wanted, " but the value is a ",
                              names[v_.index()]));
}

// ---- AutogradContext ----------------------------------------------------------

void AutogradContext::save_for_backward(TensorList to_save) { to_save_ = std::move(to_save); }

TensorList AutogradContext::get_saved_variables() const {
  if (auto node = std::static_pointer_cast<FunctionNode>(node_.lock())) return node->unpack_saved();
  return to_save_;  // forward was not recorded: the tensors as they were given
}

void AutogradContext::mark_dirty(const TensorList& inputs) { dirty_ = inputs; }
void AutogradContext::mark_non_differentiable(const TensorList& outputs) {
  non_differentiable_ = outputs;
}

bool AutogradContext::needs_input_grad(size_t i) const {
  return i < needs_input_grad_.size() && needs_input_grad_[i];
}

void AutogradContext::set_inputs(const TensorList& inputs) {
  needs_input_grad_.clear();
  for (const Tensor& in : inputs) {
    if (in.defined()) refresh_view(in);
    needs_input_grad_.push_back(is_grad_enabled() && in.defined() && in.requires_grad());
  }
}

// ---- FunctionNode -------------------------------------------------------------

TensorList FunctionNode::apply(TensorList&& grads) {
  EMBER_CHECK(!released_, kGraphFreedMessage);
  grads.resize(output_meta().size());
  if (ctx_->materialize_grads())
    for (size_t i = 0; i < grads.size(); ++i)
      if (!grads[i].defined() && output_is_tensor_[i]) grads[i] = zeros_for(output_meta()[i]);
  TensorList out = backward_(std::move(grads));
  size_t n = next_edges().size();
  // Extra gradients are fine as long as they are all undefined (PyTorch's rule).
  if (out.size() > n &&
      std::none_of(out.begin() + n, out.end(), [](const Tensor& g) { return g.defined(); }))
    out.resize(n);
  EMBER_CHECK(out.size() == n, "function ", name_, " returned an incorrect number of gradients "
              "(expected ", n, ", got ", out.size(), ")");
  for (size_t i = 0; i < n; ++i)
    EMBER_CHECK(!out[i].defined() || input_is_tensor_[i], "function ", name_, " returned a "
                "gradient different than None at position ", i + 1, ", but the corresponding "
                "forward input was not a Tensor");
  return out;
}

void FunctionNode::release_variables() {
  for (SavedTensor& s : saved_) s.release();
  released_ = true;
}

TensorList FunctionNode::unpack_saved() {
  TensorList out;
  auto self = shared_from_this();
  for (const SavedTensor& s : saved_) out.push_back(s.unpack(self));
  return out;
}

}  // namespace ember::autograd

// ---- linking forward's outputs --------------------------------------------------

namespace ember::detail {

using namespace autograd;

namespace {

bool contains(const TensorList& list, const Tensor& t) {
  return std::any_of(list.begin(), list.end(), [&](const Tensor& x) { return x.is_same(t); });
}

// A returned input becomes a new tensor on the same memory, so that the input
// keeps its own history (PyTorch's view_as_self with no grad).
Tensor alias_of_input(const Tensor& t) {
  NoGradGuard no_grad;
  return alias(t);
}

// The node, if forward must be recorded: grad mode on and an input requiring grad.
std::shared_ptr<FunctionNode> make_node(const std::shared_ptr<AutogradContext>& ctx,
                                        const TensorList& inputs, std::string name,
                                        FunctionBackward backward) {
  if (!is_grad_enabled()) return nullptr;
  std::vector<Edge> edges;
  bool any = false;
  for (const Tensor& in : inputs) {
    edges.push_back(gradient_edge(in));
    any |= edges.back().is_valid();
  }
  if (!any) return nullptr;
  auto node = std::make_shared<FunctionNode>(ctx, std::move(name), std::move(backward));
  node->next_edges() = std::move(edges);
  for (const Tensor& in : inputs) node->input_is_tensor().push_back(in.defined());
  return node;
}

// An output that gets no gradient: inputs come back as new aliases without
// history, other tensors lose the history they got inside forward.
Tensor unrecorded_output(const Tensor& out, bool is_input, bool is_dirty) {
  if (!out.requires_grad()) return is_input && !is_dirty ? alias_of_input(out) : out;
  if (is_input) return detach(out);
  Tensor t = out;
  if (!t.is_view()) t.detach_();
  return t;
}

// An input forward changed in place (ctx.mark_dirty) gets the node as its
// history; through CopySlices if it is a view.
void link_dirty(const std::shared_ptr<FunctionNode>& node, const TensorList& inputs,
                const Tensor& out, size_t output_nr, size_t num_outputs) {
  check_inplace(out, node->name().c_str());
  if (!view_info(out)) {
    set_history(out, node, static_cast<uint32_t>(output_nr));
    return;
  }
  EMBER_CHECK(num_outputs == 1, "If your Function modifies inplace an input that is a view of "
              "another Tensor, your Function cannot return more than one Tensor. You should "
              "either make sure the input is not a view (using .clone() for example) or make your "
              "Function only return one Tensor (potentially splitting it into two Functions: one "
              "doing the inplace that returns a single Tensor and a second one that does the other "
              "operations).");
  size_t self_nr = std::find_if(inputs.begin(), inputs.end(),
                                [&](const Tensor& x) { return x.is_same(out); }) - inputs.begin();
  rebase_history(out, node, self_nr);
}

}  // namespace

TensorList link_function(const std::shared_ptr<AutogradContext>& ctx, const TensorList& inputs,
                         TensorList outputs, std::string name, FunctionBackward backward) {
  std::shared_ptr<FunctionNode> node = make_node(ctx, inputs, std::move(name), std::move(backward));
  ctx->node_ = node;
  for (size_t j = 0; j < outputs.size(); ++j) {
    Tensor& out = outputs[j];
    if (node) {
      node->output_meta().push_back(out.defined() ? output_meta_of(out) : Node::OutputMeta{});
      node->output_is_tensor().push_back(out.defined());
    }
    if (!out.defined()) continue;
    bool is_input = contains(inputs, out);
    bool is_dirty = is_input && contains(ctx->dirty_, out);
    bool differentiable = node && is_floating(out.dtype()) && !contains(ctx->non_differentiable_, out);
    if (!differentiable) {
      out = unrecorded_output(out, is_input, is_dirty);
    } else if (is_dirty) {
      link_dirty(node, inputs, out, j, outputs.size());
    } else {
      if (is_input) out = alias_of_input(out);
      set_history(out, node, static_cast<uint32_t>(j));
      // An in-place change through it would bypass the custom backward.
      if (ViewInfo* info = view_info(out)) info->creation = CreationMeta::kInCustomFunction;
    }
  }
  if (node) {
    for (const Tensor& s : ctx->to_save_) {
      auto it = std::find_if(outputs.begin(), outputs.end(),
                             [&](const Tensor& o) { return s.defined() && o.is_same(s); });
      bool is_output = it != outputs.end();
      node->saved().emplace_back(s, is_output, static_cast<uint32_t>(it - outputs.begin()));
    }
    ctx->to_save_.clear();
  }
  // The node owns ctx: holding the dirty or non-differentiable tensors there would make a
  // reference cycle (a dirty view -> its base -> CopySlices -> this node -> ctx -> the view)
  // that frees nothing. They were needed only to link the outputs.
  ctx->dirty_.clear();
  ctx->non_differentiable_.clear();
  return outputs;
}

std::string function_node_name(const std::type_info& type) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : type.name();
  std::free(demangled);
  size_t end = name.find('<');
  size_t scope = name.rfind("::", end);
  if (scope != std::string::npos) name = name.substr(scope + 2);
  return name + "Backward";
}

}  // namespace ember::detail
