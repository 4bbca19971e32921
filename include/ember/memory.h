// Memory statistics of the caching allocators (ember.memory_stats() in Python).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

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
  int64_t active_allocs = 0;         // blocks held by live tensors now
  int64_t segments = 0;              // raw segments held now
};

// One block of a segment, as memory_snapshot() reports it.
struct MemoryBlock {
  uintptr_t address = 0;
  int64_t size = 0;            // bytes, rounded as the allocator hands them out
  int64_t requested_size = 0;  // bytes asked for (0 for a free block)
  // "active_allocated" (held by a tensor), "active_pending_free" (freed, but a stream
  // may still use it) or "inactive" (free, cached).
  std::string state;
};

// One segment taken from the device (one cudaMalloc or aligned malloc).
struct MemorySegment {
  uintptr_t address = 0;
  int64_t total_size = 0;
  int64_t allocated_size = 0;  // in active_allocated blocks
  int64_t active_size = 0;     // in active_allocated and active_pending_free blocks
  int64_t requested_size = 0;
  uintptr_t stream = 0;        // the stream its blocks serve (0: the default stream)
  bool is_small = false;       // from the small-block pool (requests up to 1 MiB)
  uint64_t pool_id = 0;        // 0: shared; otherwise the CUDA graph pool it belongs to
  std::vector<MemoryBlock> blocks;  // in address order
};

MemoryStats memory_stats(Device device = kCPU);
void reset_peak_memory_stats(Device device = kCPU);
// Zeroes the counters that only grow (num_allocs, num_frees, num_raw_allocs, ...).
void reset_accumulated_memory_stats(Device device = kCPU);
// Every segment the device's caching allocator holds, with its blocks.
std::vector<MemorySegment> memory_snapshot(Device device = kCPU);
// Returns every cached, unused block to the system.
void empty_cache(Device device = kCPU);
// A few lines describing the allocator's pools and counters.
std::string memory_summary(Device device = kCPU);

}  // namespace ember
