#include "dispatch/dispatcher.h"
#include "ember/autograd.h"

namespace ember {

bool is_grad_enabled() { return dispatch_state().grad_enabled; }
void set_grad_enabled(bool enabled) { dispatch_state().grad_enabled = enabled; }

NoGradGuard::NoGradGuard() : prev_(is_grad_enabled()) { set_grad_enabled(false); }
NoGradGuard::~NoGradGuard() { set_grad_enabled(prev_); }

AutoGradMode::AutoGradMode(bool enabled) : prev_(is_grad_enabled()) { set_grad_enabled(enabled); }
AutoGradMode::~AutoGradMode() { set_grad_enabled(prev_); }

}  // namespace ember
