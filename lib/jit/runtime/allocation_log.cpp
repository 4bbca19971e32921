// The allocation recorder (lib/jit/runtime/allocation_log.h).
#include "jit/runtime/allocation_log.h"

#include <new>

namespace ember::jit::runtime {

void AllocationRecorder::served_by_allocator(void* ptr, size_t nbytes) noexcept {
  try {
    live_[ptr] = log_.size();
    log_.push_back({nbytes, clock_++, -1});
  } catch (const std::bad_alloc&) {
    // The request itself was served; only the log is lost. Entries must stay in
    // request order, so a gap makes the whole log unusable.
    complete_ = false;
  }
}

bool AllocationRecorder::on_free(void* ptr) noexcept {
  auto it = live_.find(ptr);
  if (it != live_.end()) {
    log_[it->second].died = clock_++;
    live_.erase(it);
  }
  return false;  // the allocator frees it
}

}  // namespace ember::jit::runtime
