// The op profiler (ember.profiler / torch.profiler in Python). While it runs, every
// op that goes through the dispatcher, every backward node the autograd engine runs
// and every user range (RecordFunction) is recorded with its start and end time,
// thread, device, nesting and (optionally) input shapes and memory change.
//
// Not included by ember/ember.h: C++ users include "ember/profiler.h" directly.
// Times are host (CPU) times: a CUDA op's time is the time to queue its kernels.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ember::profiler {

enum class EventKind : uint8_t {
  Op,            // a dispatched op (its name is the op's schema name: "add", "mm", ...)
  BackwardNode,  // a node the autograd engine ran ("MulBackward", "AccumulateGrad", ...)
  UserRange,     // a RecordFunction
};

struct Event {
  std::string name;
  EventKind kind = EventKind::Op;
  uint64_t id = 0;         // unique among a run's events, never 0
  uint64_t parent_id = 0;  // the range this one ran inside on its thread; 0 at top level
  int depth = 0;           // 0 at top level
  int64_t start_ns = 0;    // steady clock
  int64_t end_ns = 0;
  int64_t thread_id = 0;   // the OS thread id (Python's threading.get_native_id())
  std::string device;      // "cpu", "cuda:0"; empty for backward nodes and user ranges
  // One entry per tensor input (an optional left out is empty); only with record_shapes.
  std::vector<std::vector<int64_t>> input_shapes;
  // Only with profile_memory: the change of the allocator's allocated bytes over the
  // range (CPU allocator, and the op's CUDA device for CUDA ops), children included.
  int64_t cpu_memory_bytes = 0;
  int64_t device_memory_bytes = 0;
};

struct ProfilerConfig {
  bool record_shapes = false;
  bool profile_memory = false;
};

// Starts recording on every thread. Throws if the profiler already runs.
void start(const ProfilerConfig& config = {});
// Stops recording; returns the events of all threads in start-time order. Ranges
// still open when it is called are not in the result.
std::vector<Event> stop();
bool is_enabled();

// Runs the profiler for its lifetime (stop() to get the events earlier).
class ProfilerGuard {
 public:
  explicit ProfilerGuard(const ProfilerConfig& config = {});
  ~ProfilerGuard();
  std::vector<Event> stop();
  ProfilerGuard(const ProfilerGuard&) = delete;
  ProfilerGuard& operator=(const ProfilerGuard&) = delete;

 private:
  bool running_ = true;
};

namespace detail {
struct Range;
}

// A named range on this thread: begins at construction, is recorded at end() or
// destruction. Costs one atomic load when the profiler is off.
class RecordFunction {
 public:
  explicit RecordFunction(const std::string& name, EventKind kind = EventKind::UserRange);
  ~RecordFunction();
  void end();
  RecordFunction(const RecordFunction&) = delete;
  RecordFunction& operator=(const RecordFunction&) = delete;

 private:
  std::unique_ptr<detail::Range> range_;  // null when the profiler was off at construction
  std::string name_;
  EventKind kind_ = EventKind::UserRange;
};

}  // namespace ember::profiler
