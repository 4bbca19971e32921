// What anomaly mode (ember/anomaly_mode.h) keeps and checks inside the engine.
#pragma once
#include <memory>
#include <string>

#include "ember/anomaly_mode.h"
#include "ember/autograd.h"

namespace ember::autograd {

// Remembers where `node`'s forward op was called (once per node; a no-op unless
// anomaly mode is on).
void record_forward_trace(const std::shared_ptr<Node>& node);

// Raises when a gradient `node` returned holds NaN (anomaly mode with check_nan).
void check_backward_outputs(const Node& node, const TensorList& outputs);

// An error escaped `node`'s backward: tells the reporter where its forward ran.
void report_backward_error(const Node& node);

}  // namespace ember::autograd
