// The allocation log of one run: every CPU allocation request the running thread
// made, in order, with the moment its block was freed. The first run of a graph
// for a set of input shapes is recorded (lib/jit/runtime/run_memory.h), and the
// memory plan of later runs is worked out from the log (memory_plan.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "memory/allocation_observer.h"

namespace ember::jit::runtime {

// Times count events (requests and frees) from the start of the run.
struct LoggedAllocation {
  size_t nbytes = 0;
  int64_t born = 0;
  int64_t died = -1;  // -1: not freed on this thread before the run ended
};

// Sees the requests; serves none of them.
class AllocationRecorder final : public memory::AllocationObserver {
 public:
  void* serve(size_t) noexcept override { return nullptr; }
  void served_by_allocator(void* ptr, size_t nbytes) noexcept override;
  bool on_free(void* ptr) noexcept override;

  // False when the log could not be kept (out of host memory): do not plan from it.
  bool complete() const { return complete_; }
  const std::vector<LoggedAllocation>& log() const { return log_; }

 private:
  std::vector<LoggedAllocation> log_;
  std::unordered_map<void*, size_t> live_;  // pointer -> its entry in log_
  int64_t clock_ = 0;
  bool complete_ = true;
};

}  // namespace ember::jit::runtime
