// The dispatcher's side of the op profiler (include/ember/profiler.h): one relaxed
// atomic load per op while the profiler is off; while it is on, an OpRange around
// each dispatched op records it into this thread's event buffer.
#pragma once
#include <atomic>
#include <optional>
#include <string>

#include "dispatch/op_call.h"
#include "ember/profiler.h"

namespace ember::profiler::detail {

extern std::atomic<bool> g_enabled;
inline bool enabled() { return g_enabled.load(std::memory_order_relaxed); }

// An open range: what is known when it begins.
struct Range {
  uint64_t id = 0;
  uint64_t session = 0;
  uint64_t parent_id = 0;
  int depth = 0;
  int64_t start_ns = 0;
  int64_t cpu_memory_before = 0;
  std::optional<Device> memory_device;  // a CUDA device whose memory is watched too
  int64_t device_memory_before = 0;
};

// Pushes a range on this thread's stack (device: a CUDA device to watch for memory).
Range open_range(std::optional<Device> device = std::nullopt);
// Pops it and records `event` (name, kind, device, shapes filled in by the caller).
void close_range(const Range& range, Event&& event);

// Records one dispatched op for its lifetime; built only while the profiler is on.
class OpRange {
 public:
  explicit OpRange(const OpCall& call);
  ~OpRange();
  OpRange(const OpRange&) = delete;
  OpRange& operator=(const OpRange&) = delete;

 private:
  const OpCall& call_;
  Range range_;
  std::vector<std::vector<int64_t>> shapes_;
};

}  // namespace ember::profiler::detail
