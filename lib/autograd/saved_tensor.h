// SavedTensor: a tensor a backward formula needs, saved with its version so
// that an in-place change before backward is caught (Note [Versions]).
// An op's own output is saved without its history (the node would otherwise
// own itself through it) and gets it back when unpacked. With a pack hook installed
// (ember/saved_tensor_hooks.h), the hook's packed value is kept instead of the tensor,
// and no version check is possible (as in PyTorch). Under a memory budget
// (lib/remat/remat.h) it is held through a remat::Ref instead, which the runtime may
// evict behind and which recomputes it when unpacked.
#pragma once
#include <memory>

#include "ember/autograd.h"
#include "ember/saved_tensor_hooks.h"
#include "remat/remat.h"

namespace ember::autograd {

// The error of a backward through a node whose saved tensors were freed.
extern const char* const kGraphFreedMessage;

class SavedTensor {
 public:
  SavedTensor() = default;
  SavedTensor(const Tensor& t, bool is_output, uint32_t output_nr = 0);
  // `owner` is the node that saved it: the grad_fn restored on a saved output.
  Tensor unpack(const std::shared_ptr<Node>& owner) const;
  void release() {
    data_ = Tensor();
    ref_ = remat::Ref();
    packed_.reset();
    input_edge_ = Edge();
    released_ = true;
  }
  bool defined() const { return defined_; }

 private:
  Tensor unpack_budgeted(const std::shared_ptr<Node>& owner) const;
  // The in-place error when data was written since it was saved.
  void check_version(const Tensor& data, const std::shared_ptr<Node>& owner) const;

  Tensor data_;
  std::shared_ptr<PackedTensor> packed_;  // set instead of data_ under a pack hook
  remat::Ref ref_;                         // set instead of data_ under a memory budget
  Edge input_edge_;  // a packed or budgeted input that requires grad: where its gradient goes
  uint64_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool defined_ = false;
  bool is_output_ = false;
  bool requires_grad_ = false;
  bool released_ = false;
};

}  // namespace ember::autograd
