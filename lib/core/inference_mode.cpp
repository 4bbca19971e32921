// The thread's inference-mode flag. It lives in core because every new TensorImpl reads
// it (a tensor made in inference mode is an inference tensor); grad mode is switched by
// the guard through the autograd API.
#include "ember/inference_mode.h"

#include "ember/autograd.h"

namespace ember {

namespace {
thread_local bool t_inference_mode = false;
}  // namespace

bool is_inference_mode_enabled() { return t_inference_mode; }
void set_inference_mode_enabled(bool enabled) { t_inference_mode = enabled; }

InferenceMode::InferenceMode(bool enabled)
    : previous_inference_(t_inference_mode), previous_grad_(is_grad_enabled()) {
  t_inference_mode = enabled;
  if (enabled) set_grad_enabled(false);
}

InferenceMode::~InferenceMode() {
  t_inference_mode = previous_inference_;
  set_grad_enabled(previous_grad_);
}

}  // namespace ember
