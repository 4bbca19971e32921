// Memory statistics of the caching allocators (ember.memory_stats() in Python).
#pragma once
#include <cstdint>
#include <string>

#include "ember/device.h"

namespace ember {

struct MemoryStats {
  int64_t allocated_bytes = 0;       // held by live tensors (rounded sizes)
  int64_t reserved_bytes = 0;        // taken from the system: allocated + cached
  int64_t peak_allocated_bytes = 0;  // max of allocated_bytes since the last reset
  int64_t peak_reserved_bytes = 0;
  int64_t num_allocs = 0;            // allocate() calls served
  int64_t num_frees = 0;
  int64_t num_raw_allocs = 0;        // calls to the raw allocator (malloc / cudaMalloc)
  int64_t num_raw_frees = 0;
  int64_t num_cache_hits = 0;        // allocate() calls served from cached blocks
  int64_t num_ooms = 0;              // out-of-memory errors raised (after the retry failed)
};

MemoryStats memory_stats(Device device = kCPU);
void reset_peak_memory_stats(Device device = kCPU);
// Returns every cached, unused block to the system.
void empty_cache(Device device = kCPU);
// A few lines describing the allocator's pools and counters.
std::string memory_summary(Device device = kCPU);

}  // namespace ember
