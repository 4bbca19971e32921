#include "autograd/saved_tensor.h"

#include "autograd/autograd_meta.h"
#include "ember/inference_mode.h"

namespace ember::autograd {
namespace {

// A new handle on t's memory without autograd state: detach() without the
// dispatcher (it would record a view, only to drop it), as saving is hot.
Tensor bare_alias(const Tensor& t) {
  const TensorImpl& impl = *t.impl();
  return Tensor(make_intrusive<TensorImpl>(impl.storage(), impl.storage_offset(), impl.sizes(),
                                           impl.strides(), impl.dtype()));
}

}  // namespace

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
  // An output is kept as a plain alias: holding it with its grad_fn would make
  // the node own itself. unpack() restores the history.
  data_ = is_output ? bare_alias(t) : t;
}

Tensor SavedTensor::unpack(const std::shared_ptr<Node>& owner) const {
  if (!defined_) return Tensor();
  EMBER_CHECK(!released_, kGraphFreedMessage);
  if (data_.version() != version_)
    throw Error(detail::str(
        "one of the variables needed for gradient computation has been modified by an "
        "inplace operation: [", dtype_name(data_.dtype()), " ", shape_str(data_.sizes()), "]",
        owner ? ", which is saved by " + owner->name() : std::string(), ", is at version ",
        data_.version(), "; expected version ", version_,
        " instead. Hint: the operation that failed to compute its gradient was the in-place "
        "change of that tensor; use an out-of-place op or .clone() it first."));
  if (!is_output_ || !requires_grad_) return data_;
  Tensor t = bare_alias(data_);
  set_history(t, owner, output_nr_);
  return t;
}

}  // namespace ember::autograd
