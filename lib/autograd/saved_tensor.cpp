#include "autograd/saved_tensor.h"

#include "autograd/autograd_meta.h"
#include "ember/inference_mode.h"

#include <vector>

namespace ember::autograd {
namespace {

// This thread's pack hooks, innermost last, and the disabling message, if any.
thread_local std::vector<PackHook> t_pack_hooks;
thread_local std::vector<std::string> t_disabled;

}  // namespace

SavedTensorHooksGuard::SavedTensorHooksGuard(PackHook pack) {
  EMBER_CHECK(t_disabled.empty(), t_disabled.empty() ? std::string() : t_disabled.back());
  EMBER_CHECK(pack != nullptr, "saved_tensors_hooks: the pack hook is empty");
  t_pack_hooks.push_back(std::move(pack));
}

SavedTensorHooksGuard::~SavedTensorHooksGuard() { t_pack_hooks.pop_back(); }

DisableSavedTensorHooksGuard::DisableSavedTensorHooksGuard(std::string message) {
  t_disabled.push_back(std::move(message));
}

DisableSavedTensorHooksGuard::~DisableSavedTensorHooksGuard() { t_disabled.pop_back(); }

const PackHook* current_pack_hook() { return t_pack_hooks.empty() ? nullptr : &t_pack_hooks.back(); }

const char* const kGraphFreedMessage =
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward.";

SavedTensor::SavedTensor(const Tensor& t, bool is_output, uint32_t output_nr)
    : output_nr_(output_nr), defined_(t.defined()), is_output_(is_output) {
  if (!defined_) return;
  EMBER_CHECK(!t.impl()->is_inference || is_inference_mode_enabled(),
              "Inference tensors cannot be saved for backward. To work around you can make a "
              "clone to get a normal tensor and use it in autograd.");
  version_ = t.version();
  requires_grad_ = t.requires_grad();
  if (const PackHook* pack = current_pack_hook()) {
    EMBER_CHECK(t_disabled.empty(), t_disabled.empty() ? std::string() : t_disabled.back());
    // The hook sees the tensor without its history for an output (as PyTorch's does).
    packed_ = (*pack)(is_output ? alias_without_history(t) : t);
    EMBER_CHECK(packed_ != nullptr, "saved_tensors_hooks: the pack hook returned nothing");
    EMBER_CHECK(t.version() == version_,
                "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
                "pack hook can not be modified by in-place operations as this can lead to unexpected "
                "side-effects. Please open an issue if you need to perform in-place operations on the "
                "input to a pack hook.");
    // An input keeps its place in the graph (not its memory), so that a backward
    // with create_graph differentiates through the unpacked value as through t.
    if (!is_output && requires_grad_) input_edge_ = gradient_edge(t);
    return;
  }
  if (remat::active()) {
    // The runtime's own handle: the memory counts as the tape's alone once the
    // user's tensors are gone, and may then be evicted and recomputed.
    ref_ = remat::Ref(t, remat::Ref::Holder::saved_for_backward);
    if (!is_output && requires_grad_) input_edge_ = gradient_edge(t);
    return;
  }
  // An output is kept as a plain alias: holding it with its grad_fn would make
  // the node own itself. unpack() restores the history.
  data_ = is_output ? alias_without_history(t) : t;
}

Tensor SavedTensor::unpack(const std::shared_ptr<Node>& owner) const {
  if (!defined_) return Tensor();
  EMBER_CHECK(!released_, kGraphFreedMessage);
  if (packed_) {
    Tensor t = packed_->unpack();
    EMBER_CHECK(t.defined(), "saved_tensors_hooks: the unpack hook did not return a tensor");
    if (!requires_grad_) return t;
    Tensor with_history = alias_without_history(t);
    if (is_output_) set_history(with_history, owner, output_nr_);
    else if (input_edge_.is_valid()) set_history(with_history, input_edge_.function, input_edge_.input_nr);
    return with_history;
  }
  if (ref_) return unpack_budgeted(owner);
  check_version(data_, owner);
  if (!is_output_ || !requires_grad_) return data_;
  Tensor t = alias_without_history(data_);
  set_history(t, owner, output_nr_);
  return t;
}

Tensor SavedTensor::unpack_budgeted(const std::shared_ptr<Node>& owner) const {
  check_version(ref_.alias(), owner);
  Tensor t = ref_.get();  // resident again if it was evicted
  if (!requires_grad_) return t;
  if (is_output_) set_history(t, owner, output_nr_);
  else if (input_edge_.is_valid()) set_history(t, input_edge_.function, input_edge_.input_nr);
  return t;
}

void SavedTensor::check_version(const Tensor& data, const std::shared_ptr<Node>& owner) const {
  if (data.version() != version_)
    throw Error(detail::str(
        "one of the variables needed for gradient computation has been modified by an "
        "inplace operation: [", dtype_name(data.dtype()), " ", shape_str(data.sizes()), "]",
        owner ? ", which is saved by " + owner->name() : std::string(), ", is at version ",
        data.version(), "; expected version ", version_,
        " instead. Hint: the operation that failed to compute its gradient was the in-place "
        "change of that tensor; use an out-of-place op or .clone() it first."));
}

}  // namespace ember::autograd
