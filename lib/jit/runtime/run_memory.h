// RunMemory: the memory side of one run of a graph on the CPU (docs/jit.md, "The
// deployment runtime"). Made at the start of run_graph and finished at its end:
//  - the first run for a set of input shapes (PlanCache) is recorded (allocation_log.h),
//    and when it succeeds its memory plan is worked out (memory_plan.h) and cached;
//  - later runs with those shapes are served from the plan's arena (arena_run.h).
// Nothing is planned for a graph run on another device, for a thread already
// observed (a run inside a run), or with planning turned off (switches.h).
#pragma once
#include <optional>
#include <vector>

#include "ember/tensor.h"
#include "jit/runtime/allocation_log.h"
#include "jit/runtime/arena_run.h"
#include "jit/runtime/plan_cache.h"

namespace ember::jit::runtime {

class RunMemory {
 public:
  // cache: the graph's plans (nullptr: plan nothing).
  RunMemory(PlanCache* cache, const std::vector<Tensor>& inputs, Device device);
  ~RunMemory();
  RunMemory(const RunMemory&) = delete;
  RunMemory& operator=(const RunMemory&) = delete;

  // The run succeeded, and holds no tensor but its outputs: stop observing, give the
  // arena back (the outputs keep their own bytes of it), and cache the plan of a
  // recorded run. Outputs cut out of a large arena are then moved to memory of their
  // own (a copy, their storages keeping their identity): a caller that keeps the
  // outputs of many runs must not leave a hole in each run's arena, which the next
  // run's arena, as large, could not use.
  void finish(const std::vector<Tensor>& outputs);

 private:
  void stop_observing() noexcept;

  PlanCache* cache_ = nullptr;
  InputSignature key_;
  std::optional<AllocationRecorder> recorder_;
  ArenaRun* arena_ = nullptr;
  std::optional<memory::ScopedAllocationObserver> observing_;
};

}  // namespace ember::jit::runtime
