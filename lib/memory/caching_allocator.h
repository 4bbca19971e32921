// CachingAllocator: one device-agnostic caching policy (DESIGN.md, Allocator),
// over a RawAllocator that only knows how to get and return memory (malloc,
// cudaMalloc) and, for stream-ordered devices, how to record and query events.
//
// Policy (PyTorch's proven shape):
//  - sizes are rounded up (to kMinBlockSize = 512 B);
//  - requests of at most kSmallSize (1 MiB) are carved from kSmallSegment (2 MiB)
//    segments in a small pool; larger ones come from a large pool, rounding the
//    raw request up to kLargeRound (2 MiB); the pools are kept apart so small
//    blocks do not fragment large segments;
//  - best fit: the smallest free block of the same stream that is large enough;
//    a block that is much larger than needed is split, and freed neighbours in
//    the same segment are merged back;
//  - a block belongs to the stream it was allocated on; if it was used on other
//    streams (record_stream), it is reused only after events recorded on those
//    streams at free time report completion;
//  - when the raw allocator fails, cached free segments are released and the
//    request retried; then OutOfMemoryError is raised with the statistics;
//  - an optional cap on reserved bytes (set_reserve_limit) fails requests the same way;
//  - private pools (CUDA graphs, Note [Private pools] in the .cpp): while a stream
//    captures into a pool, its requests are served from that pool's own segments.
// Thread-safe (one mutex).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/memory.h"

namespace ember::memory {

using StreamId = uintptr_t;  // 0: the default stream (and the only one on the CPU)
using EventId = uintptr_t;
using PoolId = uint64_t;  // 0: the shared pools; any other: a private pool (CUDA graphs)

class RawAllocator {
 public:
  virtual ~RawAllocator() = default;
  // Returns nullptr when the device has no memory left (never throws for that).
  virtual void* raw_alloc(size_t nbytes) = 0;
  virtual void raw_free(void* ptr) = 0;
  // Stream-ordered devices: record an event on a stream, ask whether it is done,
  // and release it. Devices without streams keep these defaults.
  virtual EventId record_event(StreamId) { return 0; }
  virtual bool event_done(EventId) { return true; }
  virtual void release_event(EventId) {}
  virtual const char* device_name() const = 0;  // "cpu", "cuda:0", for messages
};

class CachingAllocator {
 public:
  static constexpr size_t kMinBlockSize = 512;
  static constexpr size_t kSmallSize = 1 << 20;
  static constexpr size_t kSmallSegment = 2 << 20;
  static constexpr size_t kLargeRound = 2 << 20;

  // quick_lists: keep small blocks of the default stream, freed whole, in per-size
  // lists for the next request of the same size (bounded: at most 16 per size, 4 MiB
  // in all, sizes up to 64 KiB), skipping best fit, split and merge. The CPU allocator
  // uses them: a small op's allocation then costs a list pop, not tree searches.
  explicit CachingAllocator(std::unique_ptr<RawAllocator> raw, bool quick_lists = false);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // Never returns nullptr: throws OutOfMemoryError. nbytes == 0 gives a valid
  // unique pointer to a minimal block.
  void* allocate(size_t nbytes, StreamId stream = 0);
  void free(void* ptr);
  // The block of ptr is also used on `stream`: its reuse waits for that stream.
  void record_stream(void* ptr, StreamId stream);
  // Whether ptr is the start of a block this allocator handed out and not yet freed.
  bool owns(void* ptr) const;
  void empty_cache();
  MemoryStats stats() const;
  void reset_peak_stats();
  // Zeroes the counters that only grow (allocs, frees, raw allocs and frees, cache hits,
  // OOMs); the current amounts and the peaks stay.
  void reset_accumulated_stats();
  // A few lines describing the pools, for memory_summary().
  std::string summary() const;
  // Every segment held from the device, with its blocks, in address order.
  std::vector<MemorySegment> snapshot() const;

  // A cap on reserved bytes (0: none). A request that would take the reservation past
  // it is treated as out of memory: the cache is released, then OutOfMemoryError.
  // Lowering it below what is reserved frees nothing by itself.
  void set_reserve_limit(size_t bytes);
  size_t reserve_limit() const;

  // Private pools, for CUDA graphs: a captured graph's replays write into the memory
  // its capture was given, so that memory must never be handed to anyone else while
  // the graph lives. retain_pool/release_pool count a pool's owners (graphs); while
  // `stream` captures into a retained pool (begin_capture ... end_capture), requests on
  // that stream are served from the pool's own segments, and blocks freed into the
  // pool serve only requests routed to it. While any capture is underway, stream
  // events are neither recorded nor queried and nothing is given back to the device
  // (those CUDA calls are illegal during capture): frees that need events wait until
  // the last capture ends, and an exhausted device raises OutOfMemoryError at once.
  // When a pool's last owner releases it, its free segments go back to the device,
  // and the rest as their blocks are freed.
  void retain_pool(PoolId pool);
  void release_pool(PoolId pool);
  void begin_capture(StreamId stream, PoolId pool);
  void end_capture(StreamId stream);
  bool capture_underway() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The process-wide CPU allocator (64-byte aligned raw blocks).
CachingAllocator& cpu_allocator();
// The allocator of CUDA device `device` (-1: the current one; lib/cuda/cuda_allocator.cpp).
// Raises ember::Error without CUDA or without a GPU, or for a bad index.
CachingAllocator& cuda_allocator(int device);
// Page-locked host memory (cudaHostAlloc) for pin_memory(). Its blocks are allocated
// on kHostStream, a stream no work runs on: every stream a non_blocking copy used the
// block on is recorded (lib/cuda/cuda_allocator.h) and waited for before reuse.
CachingAllocator& pinned_host_allocator();
constexpr StreamId kHostStream = ~StreamId(0);
// Whether ptr is page-locked host memory (ember's or registered with CUDA otherwise).
bool is_pinned_host_ptr(const void* ptr);
// Storage deleter for memory from a CachingAllocator (ctx: the allocator).
void free_to_allocator(void* ctx, void* data);

}  // namespace ember::memory
