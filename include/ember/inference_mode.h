// Inference mode (torch.inference_mode, c10::InferenceMode): inside it nothing is
// recorded for autograd, and the tensors made there are inference tensors, which can
// never join autograd later: outside inference mode they cannot be saved for backward,
// written in place, or made to require grad (each refused with PyTorch's message).
// Views of an inference tensor are inference tensors.
#pragma once

namespace ember {

// Whether this thread is inside an enabled inference mode.
bool is_inference_mode_enabled();
void set_inference_mode_enabled(bool enabled);

// RAII: inference mode (and grad mode off) for a scope, restored after it.
class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true);
  ~InferenceMode();
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;

 private:
  bool previous_inference_;
  bool previous_grad_;
};

}  // namespace ember
