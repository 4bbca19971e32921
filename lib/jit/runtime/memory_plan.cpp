// Greedy-by-size arena packing (lib/jit/runtime/memory_plan.h).
#include "jit/runtime/memory_plan.h"

#include <algorithm>
#include <climits>

namespace ember::jit::runtime {

size_t MemoryPlan::slot_bytes(size_t nbytes) {
  // A zero-byte request still needs an address of its own.
  return std::max<size_t>(1, (nbytes + kAlignment - 1) / kAlignment) * kAlignment;
}

namespace {

struct Block {
  size_t index;  // into the log
  size_t size;   // aligned
  int64_t born, died;
};

bool overlap_in_time(const Block& a, const Block& b) { return a.born < b.died && b.born < a.died; }

}  // namespace

MemoryPlan plan_memory(const std::vector<LoggedAllocation>& log) {
  MemoryPlan plan;
  plan.requests.reserve(log.size());
  std::vector<Block> blocks;
  for (size_t i = 0; i < log.size(); ++i) {
    const bool outlives = log[i].died < 0;
    plan.requests.push_back({log[i].nbytes, MemoryPlan::kNotPlanned});
    if (outlives && log[i].nbytes > memory::CachingAllocator::kSmallSize) continue;
    const int64_t died = outlives ? INT64_MAX : log[i].died;
    blocks.push_back({i, MemoryPlan::slot_bytes(log[i].nbytes), log[i].born, died});
  }
  std::stable_sort(blocks.begin(), blocks.end(),
                   [](const Block& a, const Block& b) { return a.size > b.size; });

  std::vector<const Block*> placed;
  std::vector<size_t> offset(log.size(), 0);
  std::vector<const Block*> concurrent;
  for (const Block& b : blocks) {
    concurrent.clear();
    for (const Block* p : placed)
      if (overlap_in_time(*p, b)) concurrent.push_back(p);
    std::sort(concurrent.begin(), concurrent.end(),
              [&](const Block* x, const Block* y) { return offset[x->index] < offset[y->index]; });
    size_t best = SIZE_MAX, best_gap = SIZE_MAX, top = 0;
    for (const Block* p : concurrent) {
      const size_t start = offset[p->index];
      if (start > top && start - top >= b.size && start - top < best_gap) {
        best = top;
        best_gap = start - top;
      }
      top = std::max(top, start + p->size);
    }
    if (best == SIZE_MAX) best = top;
    offset[b.index] = best;
    plan.requests[b.index].offset = best;
    plan.arena_bytes = std::max(plan.arena_bytes, best + b.size);
    plan.planned_bytes += b.size;
    placed.push_back(&b);
  }
  return plan;
}

}  // namespace ember::jit::runtime
