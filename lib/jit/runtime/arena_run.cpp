// A run served from an arena (lib/jit/runtime/arena_run.h).
#include "jit/runtime/arena_run.h"

#include <algorithm>
#include <new>

#include "memory/caching_allocator.h"

namespace ember::jit::runtime {

ArenaRun* ArenaRun::start(std::shared_ptr<const MemoryPlan> plan) {
  if (!plan || plan->arena_bytes == 0) return nullptr;
  // Without memory for an arena (or its bookkeeping), allocating as usual may still work.
  void* base = nullptr;
  ArenaRun* run = nullptr;
  try {
    // Exact: a large pool's block may be up to 1 MiB larger, held for the whole run.
    base = memory::cpu_allocator().allocate_exact(plan->arena_bytes);
    run = new ArenaRun(std::move(plan), static_cast<char*>(base));
    memory::register_served_range(base, run->plan_->arena_bytes, run);
    return run;
  } catch (...) {
    delete run;
    if (base) memory::free_to_allocator(&memory::cpu_allocator(), base);
    return nullptr;
  }
}

ArenaRun::ArenaRun(std::shared_ptr<const MemoryPlan> plan, char* base)
    : plan_(std::move(plan)), base_(base) {
  live_.reserve(16);
}

bool ArenaRun::contains(const void* ptr) const {
  const char* p = static_cast<const char*>(ptr);
  return p >= base_ && p < base_ + plan_->arena_bytes;
}

bool ArenaRun::on_plan() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !diverged_;
}

bool ArenaRun::overlaps_live(size_t offset, size_t end) const {
  auto it = std::lower_bound(live_.begin(), live_.end(), offset,
                             [](const LiveBlock& b, size_t o) { return b.offset < o; });
  if (it != live_.end() && it->offset < end) return true;
  return it != live_.begin() && std::prev(it)->end > offset;
}

void* ArenaRun::serve(size_t nbytes) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (diverged_ || finished_) return nullptr;
  const size_t k = next_++;
  if (k >= plan_->requests.size() || plan_->requests[k].nbytes != nbytes) {
    diverged_ = true;
    return nullptr;
  }
  const size_t offset = plan_->requests[k].offset;
  if (offset == MemoryPlan::kNotPlanned) return nullptr;
  const size_t end = offset + MemoryPlan::slot_bytes(nbytes);
  if (overlaps_live(offset, end)) {
    diverged_ = true;
    return nullptr;
  }
  try {
    auto it = std::lower_bound(live_.begin(), live_.end(), offset,
                               [](const LiveBlock& b, size_t o) { return b.offset < o; });
    live_.insert(it, {offset, end});
  } catch (const std::bad_alloc&) {
    diverged_ = true;
    return nullptr;
  }
  return base_ + offset;
}

bool ArenaRun::on_free(void* ptr) noexcept {
  if (!contains(ptr)) return false;
  const auto offset = static_cast<size_t>(static_cast<char*>(ptr) - base_);
  bool last;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = std::lower_bound(live_.begin(), live_.end(), offset,
                               [](const LiveBlock& b, size_t o) { return b.offset < o; });
    if (it == live_.end() || it->offset != offset) return false;  // not a live block: the allocator reports it
    live_.erase(it);
    last = finished_ && live_.empty();
  }
  if (last) destroy();
  return true;
}

void ArenaRun::finish() noexcept {
  std::vector<std::pair<size_t, size_t>> keep;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
    if (!live_.empty()) {
      // What outlives the run (its outputs) keeps its own bytes as allocator blocks;
      // the rest of the arena goes back now. Failing that (no memory for the list),
      // the whole arena stays until the last of them is freed (on_free).
      try {
        for (const LiveBlock& b : live_) keep.emplace_back(b.offset, b.end - b.offset);
        memory::cpu_allocator().release_all_but(base_, keep);
      } catch (...) {
        return;
      }
    }
  }
  if (keep.empty()) return destroy();
  memory::unregister_served_range(base_);
  delete this;
}

void ArenaRun::destroy() noexcept {
  memory::unregister_served_range(base_);
  memory::free_to_allocator(&memory::cpu_allocator(), base_);
  delete this;
}

}  // namespace ember::jit::runtime
