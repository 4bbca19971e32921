// The public memory functions of ember/memory.h and ember/cuda.h: each finds the
// device's caching allocator and asks it.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <map>
#include <mutex>

#include "ember/cuda.h"
#include "ember/error.h"
#include "ember/memory.h"
#include "memory/caching_allocator.h"

namespace ember::memory {

// A storage's deleter runs in a destructor, where an exception would end the process:
// a failed free (a CUDA error recording the block's stream events, a context already
// torn down at exit) is reported on stderr and the block stays with the allocator.
void free_to_allocator(void* ctx, void* data) noexcept {
  try {
    static_cast<CachingAllocator*>(ctx)->free(data);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ember: warning: freeing memory at %p failed: %s\n", data, e.what());
  } catch (...) {
    std::fprintf(stderr, "ember: warning: freeing memory at %p failed\n", data);
  }
}

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
void reset_accumulated_memory_stats(Device device) { allocator_for(device).reset_accumulated_stats(); }
std::vector<MemorySegment> memory_snapshot(Device device) { return allocator_for(device).snapshot(); }

}  // namespace ember

namespace ember::cuda {

MemoryStats memory_stats(int device) { return memory::cuda_allocator(device).stats(); }
int64_t memory_allocated(int device) { return memory_stats(device).allocated_bytes; }
int64_t max_memory_allocated(int device) { return memory_stats(device).peak_allocated_bytes; }
int64_t memory_reserved(int device) { return memory_stats(device).reserved_bytes; }
int64_t max_memory_reserved(int device) { return memory_stats(device).peak_reserved_bytes; }
void reset_peak_memory_stats(int device) { memory::cuda_allocator(device).reset_peak_stats(); }
std::string memory_summary(int device) { return memory::cuda_allocator(device).summary(); }


void reset_accumulated_memory_stats(int device) {
  memory::cuda_allocator(device).reset_accumulated_stats();
}

namespace {
// The fraction each device was given (1: the whole GPU); the allocator holds the cap.
std::mutex fraction_mutex;
std::map<int, double>& memory_fractions() {
  static auto* fractions = new std::map<int, double>();
  return *fractions;
}
}  // namespace

void set_per_process_memory_fraction(double fraction, int device) {
  EMBER_CHECK_VALUE(fraction >= 0.0 && fraction <= 1.0, "set_per_process_memory_fraction: invalid "
                    "fraction ", fraction, "; it must lie in [0, 1]");
  memory::CachingAllocator& allocator = memory::cuda_allocator(device);
  const int d = device >= 0 ? device : current_device();
  const int64_t total = mem_get_info(d).second;
  std::lock_guard<std::mutex> lock(fraction_mutex);
  // A cap of 0 bytes would read as "no cap": fraction 0 allows one byte, i.e. nothing.
  const size_t cap = fraction >= 1.0 ? 0 : std::max<size_t>(1, static_cast<size_t>(fraction * static_cast<double>(total)));
  allocator.set_reserve_limit(cap);
  memory_fractions()[d] = fraction;
}

double get_per_process_memory_fraction(int device) {
  memory::cuda_allocator(device);  // checks the index (and that there is a GPU)
  const int d = device >= 0 ? device : current_device();
  std::lock_guard<std::mutex> lock(fraction_mutex);
  auto it = memory_fractions().find(d);
  return it == memory_fractions().end() ? 1.0 : it->second;
}

}  // namespace ember::cuda
