// Anomaly detection for autograd (torch.autograd.detect_anomaly,
// torch::autograd::DetectAnomalyGuard). While it is on:
//   - every backward node remembers where its forward op was called (the Python
//     stack, when a front end provides one: set_forward_trace_provider), and an error
//     raised inside a node's backward is reported with that place;
//   - with check_nan, a node whose backward returns NaN raises RuntimeError
//     "Function 'MulBackward0' returned nan values in its 0th output."
// It is a debugging aid and costs time: a stack per recorded op, a NaN scan of
// every gradient. The switch is process-wide, as PyTorch's is.
#pragma once
#include <string>

namespace ember::autograd {

bool is_anomaly_enabled();
bool is_anomaly_check_nan_enabled();
void set_anomaly_enabled(bool enabled, bool check_nan = true);

// RAII: anomaly mode on (with check_nan) for a scope, the previous mode restored after it.
class DetectAnomalyGuard {
 public:
  explicit DetectAnomalyGuard(bool check_nan = true);
  ~DetectAnomalyGuard();
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool previous_enabled_;
  bool previous_check_nan_;
};

// Where the forward call is, as text ("" when unknown); called when a node is
// recorded in anomaly mode. The Python front end installs one that formats the
// Python stack.
using ForwardTraceProvider = std::string (*)();
void set_forward_trace_provider(ForwardTraceProvider provider);

// Told about an error in a node's backward before it propagates: the node's name,
// the forward trace. The default writes a warning to stderr; the Python front end
// issues a UserWarning, as PyTorch does.
using AnomalyReporter = void (*)(const std::string& node_name, const std::string& forward_trace);
void set_anomaly_reporter(AnomalyReporter reporter);

}  // namespace ember::autograd
