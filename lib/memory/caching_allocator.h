// CachingAllocator: one device-agnostic caching policy (DESIGN.md, Allocator),
// over a RawAllocator that only knows how to get and return memory (malloc,
// cudaMalloc) and, for stream-ordered devices, how to record and query events.
//
// Policy (PyTorch's proven shape):
//  - sizes are rounded up (to kMinBlockSize = 512 B);
//  - requests of at most kSmallSize (1 MiB) are carved from kSmallSegment (2 MiB)
//    segments in a small pool; larger ones come from a large pool, rounding the
//    raw request up to kLargeRound (2 MiB); the pools are kept apart so small
//    blocks do not fragment large segments; with large_segments (the CUDA
//    allocators), requests under kMinLargeAlloc (10 MiB) share kLargeSegment
//    (20 MiB) segments, so a few cudaMalloc calls serve many mid-size tensors;
//  - max_split_size (PyTorch's max_split_size_mb): free blocks at least that large
//    are not split for smaller requests, nor used for requests kLargeSegment smaller;
//  - best fit: the smallest free block of the same stream that is large enough;
//    a block that is much larger than needed is split, and freed neighbours in
//    the same segment are merged back;
//  - a block belongs to the stream it was allocated on; if it was used on other
//    streams (record_stream), it is reused only after events recorded on those
//    streams at free time report completion;
//  - when the raw allocator fails, cached free segments are released and the
//    request retried; then OutOfMemoryError is raised with the statistics;
//  - an optional cap on reserved bytes (set_reserve_limit) fails requests the same way,
//    and with a garbage_collection_threshold, cached segments are released, least
//    recently freed first, before the reservation grows past threshold * cap;
//  - the OOM retry and empty_cache() first wait for the events of pending blocks
//    (record_stream), so those blocks are reclaimed too; completed events are kept
//    and recorded again for the next frees (no event made and destroyed per free);
//  - private pools (CUDA graphs, Note [Private pools] in the .cpp): while a stream
//    captures into a pool, its requests are served from that pool's own segments.
//  - a thread may install an AllocationObserver (allocation_observer.h) that sees,
//    and may serve, its requests: the jit runtime's arenas.
// Thread-safe (one mutex).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/memory.h"

namespace ember::memory {

using StreamId = uintptr_t;  // 0: the default stream (and the only one on the CPU)
using EventId = uintptr_t;
using PoolId = uint64_t;  // 0: the shared pools; any other: a private pool (CUDA graphs)

// Tunables of a CachingAllocator (PyTorch's PYTORCH_CUDA_ALLOC_CONF options).
struct AllocatorSettings {
  bool large_segments = false;        // mid-size requests share 20 MiB segments
  size_t max_split_size = SIZE_MAX;   // free blocks this large are not split (bytes)
  double garbage_collection_threshold = 0.0;  // in (0, 1); acts only under a reserve limit
};

// Parses "max_split_size_mb:128,garbage_collection_threshold:0.6,expandable_segments:True"
// (PyTorch's syntax) over `base`. Options ember implements are applied; PyTorch options
// it does not implement are listed in `ignored` (the caller warns); anything else, or a
// bad value, raises ValueError naming it.
AllocatorSettings parse_allocator_settings(const std::string& conf, AllocatorSettings base,
                                           std::vector<std::string>* ignored);

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
  // Blocks the host until the event has completed.
  virtual void synchronize_event(EventId) {}
  // Records a completed event again, on `stream`, instead of making a new one; false
  // when this event cannot serve that stream (another device's): the caller then
  // releases it and records a new one.
  virtual bool rerecord_event(EventId, StreamId) { return false; }
  virtual void release_event(EventId) {}
  virtual const char* device_name() const = 0;  // "cpu", "cuda:0", for messages
};

class CachingAllocator {
 public:
  static constexpr size_t kMinBlockSize = 512;
  static constexpr size_t kSmallSize = 1 << 20;
  static constexpr size_t kSmallSegment = 2 << 20;
  static constexpr size_t kLargeRound = 2 << 20;
  static constexpr size_t kMinLargeAlloc = 10 << 20;
  static constexpr size_t kLargeSegment = 20 << 20;

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
  // The same, on the default stream, but the block is cut to nbytes (rounded up to
  // kMinBlockSize) where the large pool would hand out a larger one: a block held long
  // and whole (a jit runtime arena) holds, and counts, only what it uses.
  void* allocate_exact(size_t nbytes);
  void free(void* ptr);
  // The block of ptr is also used on `stream`: its reuse waits for that stream.
  void record_stream(void* ptr, StreamId stream);
  // Frees the block at ptr except the byte ranges `keep` ({offset from ptr, size}, in
  // address order, not overlapping, each offset and size a positive multiple of
  // kMinBlockSize): each becomes a block of its own, allocated, freed as any other.
  // The jit runtime's arenas (lib/jit/runtime/arena_run.h): what outlives a run keeps
  // its own bytes only. Raises ValueError for bad ranges, touching nothing.
  void release_all_but(void* ptr, const std::vector<std::pair<size_t, size_t>>& keep);
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

  void configure(const AllocatorSettings& settings);
  AllocatorSettings settings() const;

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
void free_to_allocator(void* ctx, void* data) noexcept;

}  // namespace ember::memory
