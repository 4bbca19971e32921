// ArenaRun: one run served from a memory plan's arena (memory_plan.h).
//
// The arena is one block of the CPU caching allocator, taken when the run starts
// and given back when it ends, so concurrent runs each have their own, memory held
// between runs stays in the allocator's cache for anyone, and the allocator's
// statistics count the arena as what it is: one allocation.
//
// The k-th request of the run is served at the plan's offset for it when it asks
// for the planned size. Nothing else is trusted to repeat the recorded run: before
// serving, the run checks that no block it served and that is still alive overlaps
// the new one. A request that does not match (another size, one more request than
// recorded, an overlap because a block lived longer this time) ends the replay:
// that request and all later ones go to the allocator. Blocks freed later than
// recorded are still safe, since no live block is ever overlapped.
//
// When the run ends, the blocks still alive (its outputs, planned like the rest)
// are cut out of the arena as allocator blocks of their own and the rest of it goes
// back (CachingAllocator::release_all_but). Until then, the arena's range is registered
// (lib/memory/allocation_observer.h), so a block freed on another thread during the
// run comes back here.
#pragma once
#include <memory>
#include <mutex>
#include <vector>

#include "jit/runtime/memory_plan.h"
#include "memory/allocation_observer.h"

namespace ember::jit::runtime {

class ArenaRun final : public memory::AllocationObserver {
 public:
  // nullptr when the plan has nothing to serve or the arena cannot be had (the run
  // then allocates as usual).
  static ArenaRun* start(std::shared_ptr<const MemoryPlan> plan);

  void* serve(size_t nbytes) noexcept override;
  void served_by_allocator(void*, size_t) noexcept override {}
  bool on_free(void* ptr) noexcept override;

  // Whether ptr points into the arena.
  bool contains(const void* ptr) const;
  const void* base() const { return base_; }
  size_t arena_bytes() const { return plan_->arena_bytes; }
  // Whether every request so far was served as planned.
  bool on_plan() const;
  // The run is over (its thread no longer observed): the blocks still alive become
  // allocator blocks, the rest of the arena goes back. `this` is gone when it
  // returns (in the rare case that cutting fails, when the last block is freed).
  void finish() noexcept;

 private:
  struct LiveBlock {
    size_t offset, end;
  };
  ArenaRun(std::shared_ptr<const MemoryPlan> plan, char* base);
  void destroy() noexcept;
  bool overlaps_live(size_t offset, size_t end) const;

  std::shared_ptr<const MemoryPlan> plan_;
  char* base_;
  mutable std::mutex mutex_;  // frees may come from other threads
  size_t next_ = 0;           // the index of the next request
  bool diverged_ = false;
  bool finished_ = false;
  std::vector<LiveBlock> live_;  // sorted by offset
};

}  // namespace ember::jit::runtime
