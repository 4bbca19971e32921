// The public memory functions of ember/memory.h and ember/cuda.h: each finds the
// device's caching allocator and asks it.
#include "ember/cuda.h"
#include "ember/memory.h"
#include "memory/caching_allocator.h"

namespace ember::memory {

void free_to_allocator(void* ctx, void* data) { static_cast<CachingAllocator*>(ctx)->free(data); }

}  // namespace ember::memory

namespace ember {

namespace {

memory::CachingAllocator& allocator_for(Device device) {
  return device.is_cuda() ? memory::cuda_allocator(device.index) : memory::cpu_allocator();
}

}  // namespace

MemoryStats memory_stats(Device device) { return allocator_for(device).stats(); }
void reset_peak_memory_stats(Device device) { allocator_for(device).reset_peak_stats(); }
void empty_cache(Device device) { allocator_for(device).empty_cache(); }
std::string memory_summary(Device device) { return allocator_for(device).summary(); }

}  // namespace ember

namespace ember::cuda {

MemoryStats memory_stats(int device) { return memory::cuda_allocator(device).stats(); }
int64_t memory_allocated(int device) { return memory_stats(device).allocated_bytes; }
int64_t max_memory_allocated(int device) { return memory_stats(device).peak_allocated_bytes; }
int64_t memory_reserved(int device) { return memory_stats(device).reserved_bytes; }
int64_t max_memory_reserved(int device) { return memory_stats(device).peak_reserved_bytes; }
void reset_peak_memory_stats(int device) { memory::cuda_allocator(device).reset_peak_stats(); }
std::string memory_summary(int device) { return memory::cuda_allocator(device).summary(); }

void empty_cache() {
  for (int d = 0; d < device_count(); ++d) memory::cuda_allocator(d).empty_cache();
}

}  // namespace ember::cuda
