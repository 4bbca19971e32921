// A memory budget with automatic rematerialization (ember.memory.set_budget in
// Python). While a budget is set on a device, an allocation there that would take
// the caching allocator's allocated bytes past it first evicts activations that
// backward needs but can recompute (dynamic tensor rematerialization, DTR): the
// tensor chosen has the smallest (recompute cost) / (size x time since last use),
// where the cost counts the evicted tensors around it that a recompute would also
// need. An evicted tensor is recomputed, from the op that made it, when backward or a
// later op reads it; dropout's random numbers come out the same. No annotation of
// the model is needed. When even eviction cannot make room, the allocation raises
// OutOfMemoryError naming the budget.
//
//   ember::memory::BudgetGuard budget(256 << 20);   // 256 MiB on the CPU
//   loss = model.forward(x); loss.backward();
//
// See lib/remat/remat.h for what can be evicted, docs/memory.md for the trade-off.
#pragma once
#include <cstdint>
#include <optional>

#include "ember/device.h"

namespace ember::memory {

// Sets (bytes > 0) or clears (std::nullopt) the budget of `device`; ValueError for
// bytes <= 0. Clearing does not bring evicted tensors back: they are recomputed when read.
void set_budget(std::optional<int64_t> bytes, Device device = kCPU);
std::optional<int64_t> get_budget(Device device = kCPU);

// Sets a budget for a scope, then restores the one before.
class BudgetGuard {
 public:
  explicit BudgetGuard(std::optional<int64_t> bytes, Device device = kCPU);
  ~BudgetGuard();
  BudgetGuard(const BudgetGuard&) = delete;
  BudgetGuard& operator=(const BudgetGuard&) = delete;

 private:
  Device device_;
  std::optional<int64_t> previous_;
};

// What the runtime did on a device since the last reset (also in ember.memory_stats()).
struct RematStats {
  int64_t evictions = 0;          // tensors evicted
  int64_t evicted_bytes = 0;      // their bytes, summed
  int64_t recomputations = 0;     // ops rerun to bring evicted tensors back
  double recompute_seconds = 0;   // time spent in those reruns
  int64_t tracked_tensors = 0;    // tensors the runtime could evict or recompute now
  int64_t evicted_now = 0;        // of those, evicted at this moment
};
RematStats remat_stats(Device device = kCPU);
void reset_remat_stats(Device device = kCPU);

}  // namespace ember::memory
