// A memory plan: where, in one arena, each allocation request of a run goes.
//
// Worked out once per input shape from the allocation log of a recorded run
// (allocation_log.h). Each block has a lifetime (from its request to its free, or
// to the end of the run for what outlives it: the outputs); blocks whose lifetimes
// overlap must not share bytes, and the arena should be as small as possible. That
// is offline dynamic storage allocation (NP-hard in general); the plan uses the
// greedy-by-size heuristic: blocks are placed largest first, each at the
// best-fitting gap (the smallest that holds it) between the blocks already placed
// that are alive at the same time, or above them all.
//
// Offsets and sizes are multiples of the caching allocator's block size, so that
// what outlives a run can be cut out of the arena as an allocator block of its own
// (ArenaRun::finish). A block that outlives the run and is larger than the allocator's
// small requests is not planned: the allocator serves it while the arena is held, so
// that it never sits where the next run's arena goes (RunMemory::finish).
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "jit/runtime/allocation_log.h"
#include "memory/caching_allocator.h"

namespace ember::jit::runtime {

struct MemoryPlan {
  static constexpr size_t kAlignment = memory::CachingAllocator::kMinBlockSize;
  static constexpr size_t kNotPlanned = SIZE_MAX;

  struct Request {
    size_t nbytes = 0;  // the size the run asked for
    size_t offset = 0;  // where it goes in the arena, or kNotPlanned (the allocator)
  };
  std::vector<Request> requests;  // in request order
  size_t arena_bytes = 0;         // 0: nothing to serve
  size_t planned_bytes = 0;       // the sum of the blocks' sizes (for reports)

  // The bytes a request takes in the arena (a zero-byte one too: it needs an
  // address of its own).
  static size_t slot_bytes(size_t nbytes);
};

MemoryPlan plan_memory(const std::vector<LoggedAllocation>& log);

}  // namespace ember::jit::runtime
