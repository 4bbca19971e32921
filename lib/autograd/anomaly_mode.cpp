// Anomaly mode: the switch, the forward traces of recorded nodes, the NaN check.
//
// Why a side table, not a field of Node: the traces exist only while someone is
// debugging, and a node outside anomaly mode should not pay for a string (or a
// header change that recompiles every user of Node). The table holds weak
// references; entries of dead nodes are swept as it grows.
#include <atomic>
#include <cstdio>
#include <mutex>
#include <unordered_map>

#include "autograd/anomaly_metadata.h"
#include "ember/error.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"

namespace ember::autograd {
namespace {

std::atomic<bool> g_enabled{false};
std::atomic<bool> g_check_nan{true};
std::atomic<ForwardTraceProvider> g_provider{nullptr};

void report_to_stderr(const std::string& name, const std::string& trace) {
  std::fprintf(stderr, "ember: error detected in %s.%s%s\n", name.c_str(),
               trace.empty() ? "" : " Traceback of forward call that caused the error:\n",
               trace.c_str());
}
std::atomic<AnomalyReporter> g_reporter{&report_to_stderr};

struct TraceTable {
  std::mutex mutex;
  std::unordered_map<const Node*, std::pair<std::weak_ptr<Node>, std::string>> traces;
  size_t sweep_at = 1024;

  void sweep() {
    for (auto it = traces.begin(); it != traces.end();)
      it = it->second.first.expired() ? traces.erase(it) : std::next(it);
    sweep_at = std::max<size_t>(1024, 2 * traces.size());
  }
};

TraceTable& table() {
  static TraceTable* t = new TraceTable();  // never destroyed: nodes may die at exit
  return *t;
}

}  // namespace

bool is_anomaly_enabled() { return g_enabled.load(std::memory_order_relaxed); }
bool is_anomaly_check_nan_enabled() { return g_check_nan.load(std::memory_order_relaxed); }

void set_anomaly_enabled(bool enabled, bool check_nan) {
  g_enabled = enabled;
  g_check_nan = check_nan;
}

DetectAnomalyGuard::DetectAnomalyGuard(bool check_nan)
    : previous_enabled_(is_anomaly_enabled()), previous_check_nan_(is_anomaly_check_nan_enabled()) {
  set_anomaly_enabled(true, check_nan);
}
DetectAnomalyGuard::~DetectAnomalyGuard() { set_anomaly_enabled(previous_enabled_, previous_check_nan_); }

void set_forward_trace_provider(ForwardTraceProvider provider) { g_provider = provider; }
void set_anomaly_reporter(AnomalyReporter reporter) {
  g_reporter = reporter ? reporter : &report_to_stderr;
}

void record_forward_trace(const std::shared_ptr<Node>& node) {
  if (!is_anomaly_enabled() || !node) return;
  TraceTable& t = table();
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    auto it = t.traces.find(node.get());
    // A live entry is this node's (a regenerated view's node keeps its first trace);
    // a dead one belonged to an earlier node at the same address.
    if (it != t.traces.end() && !it->second.first.expired()) return;
  }
  ForwardTraceProvider provider = g_provider.load();
  std::string trace = provider ? provider() : std::string();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.traces[node.get()] = {node, std::move(trace)};
  if (t.traces.size() >= t.sweep_at) t.sweep();
}

void check_backward_outputs(const Node& node, const TensorList& outputs) {
  if (!is_anomaly_check_nan_enabled()) return;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& g = outputs[i];
    if (!g.defined() || !is_floating(g.dtype()) || g.numel() == 0) continue;
    if (any(isnan(g)).item<bool>())
      throw Error(detail::str("Function '", node.name(), "' returned nan values in its ", i,
                              "th output."));
  }
}

void report_backward_error(const Node& node) {
  std::string trace;
  {
    TraceTable& t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    auto it = t.traces.find(&node);
    if (it != t.traces.end() && !it->second.first.expired()) trace = it->second.second;
  }
  if (trace.empty())
    trace = "No forward pass information available. Enable detect anomaly during forward pass "
            "for more information.";
  g_reporter.load()(node.name(), trace);
}

}  // namespace ember::autograd
