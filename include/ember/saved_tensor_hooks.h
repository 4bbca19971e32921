// Saved-tensor hooks: what autograd keeps for backward, packed and unpacked by the
// user (torch.autograd.graph.saved_tensors_hooks). While a guard is alive on a
// thread, every tensor an op saves for its backward is handed to `pack`, and the
// packed value is kept instead of the tensor; backward asks it for the tensor back.
// Uses: keeping activations on the CPU (save_on_cpu), compressing them, or recomputing
// them (activation checkpointing without reentrant backward).
//
// Not included by ember.h (it is rarely needed): #include <ember/saved_tensor_hooks.h>.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "ember/tensor.h"

namespace ember::autograd {

// What a pack hook returns: anything that can give the tensor back.
class PackedTensor {
 public:
  virtual ~PackedTensor() = default;
  virtual Tensor unpack() const = 0;
};

using PackHook = std::function<std::shared_ptr<PackedTensor>(const Tensor&)>;

// Installs pack for the tensors saved on this thread while it is alive; guards nest
// (the innermost packs). Not copyable.
class SavedTensorHooksGuard {
 public:
  explicit SavedTensorHooksGuard(PackHook pack);
  ~SavedTensorHooksGuard();
  SavedTensorHooksGuard(const SavedTensorHooksGuard&) = delete;
  SavedTensorHooksGuard& operator=(const SavedTensorHooksGuard&) = delete;
};

// While alive, saving a tensor for backward raises RuntimeError(message) when hooks
// are installed, and installing hooks raises it too (torch's
// disable_saved_tensors_hooks).
class DisableSavedTensorHooksGuard {
 public:
  explicit DisableSavedTensorHooksGuard(std::string message);
  ~DisableSavedTensorHooksGuard();
  DisableSavedTensorHooksGuard(const DisableSavedTensorHooksGuard&) = delete;
  DisableSavedTensorHooksGuard& operator=(const DisableSavedTensorHooksGuard&) = delete;
};

// The innermost pack hook of this thread, or nullptr.
const PackHook* current_pack_hook();

}  // namespace ember::autograd
