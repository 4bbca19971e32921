// The memory side of a run (lib/jit/runtime/run_memory.h).
#include "jit/runtime/run_memory.h"

#include <cstring>

#include "jit/runtime/switches.h"
#include "memory/caching_allocator.h"

namespace ember::jit::runtime {

RunMemory::RunMemory(PlanCache* cache, const std::vector<Tensor>& inputs, Device device) {
  if (!cache || !device.is_cpu() || memory::thread_is_observed() || !memory_planning_enabled())
    return;
  cache_ = cache;
  key_ = input_signature(inputs);
  key_.push_back(fusion_enabled() ? 1 : 0);  // fused groups allocate differently
  memory::CachingAllocator& allocator = memory::cpu_allocator();
  if (std::shared_ptr<const MemoryPlan> plan = cache->find(key_)) {
    arena_ = ArenaRun::start(std::move(plan));
    if (arena_) observing_.emplace(allocator, arena_);
    return;
  }
  recorder_.emplace();
  observing_.emplace(allocator, &*recorder_);
}

void RunMemory::stop_observing() noexcept {
  observing_.reset();
  if (arena_) std::exchange(arena_, nullptr)->finish();
}

void RunMemory::finish(const std::vector<Tensor>& outputs) {
  observing_.reset();
  if (arena_) {
    const char* begin = nullptr;
    const char* end = nullptr;
    if (arena_->arena_bytes() > memory::CachingAllocator::kSmallSize) {
      begin = static_cast<const char*>(arena_->base());
      end = begin + arena_->arena_bytes();
    }
    std::exchange(arena_, nullptr)->finish();
    for (const Tensor& t : outputs) {
      if (!begin || !t.defined()) continue;
      Storage& storage = *t.impl()->storage();
      const char* data = static_cast<const char*>(storage.data());
      if (data < begin || data >= end) continue;  // also: moved already (a shared storage)
      IntrusivePtr<Storage> own = Storage::allocate(storage.nbytes(), storage.device());
      std::memcpy(own->data(), storage.data(), storage.nbytes());
      storage.swap_memory(*own);  // `own` now frees the piece of the arena
    }
  }
  if (recorder_ && recorder_->complete())
    cache_->insert(std::move(key_), std::make_shared<const MemoryPlan>(plan_memory(recorder_->log())));
  recorder_.reset();
}

RunMemory::~RunMemory() { stop_observing(); }

}  // namespace ember::jit::runtime
