// CachingAllocator (policy in caching_allocator.h). The blocks carved from one raw
// segment form a doubly linked list in address order, so a freed block finds its
// neighbours and merges with them; free blocks wait in a per-pool std::set ordered by
// (stream, size, address), so best fit is one lower_bound.
//
// A block is in exactly one state:
//   allocated  in allocated_ (user holds it)
//   pending    event_count > 0 (freed, but other streams may still use it)
//   quick      in a quick list: a small block freed whole, kept by exact size for the
//              next request of that size (no best-fit search, split or merge; bounded)
//   free       in its pool's set (can be reused or merged)
//   deferred   freed during a CUDA graph capture while other streams used it: its
//              events are recorded when the last capture ends (event_count is 1 until then)
//
// Note [Private pools]
// A CUDA graph replays the kernels it captured with the addresses they had during
// capture. So the memory a capture used belongs to the graph until the graph is reset:
// the capture's requests are served from segments of a private pool (Block::pool), whose
// free blocks serve only later requests routed to the same pool (the same capture, or
// another graph sharing the pool through graph_pool_handle). The pool outlives the
// graph's capture; when its last owner releases it (retain_pool/release_pool), its
// free segments go back to the device, and the others as their last block is freed
// (a tensor made during capture may outlive the graph). During any capture no stream
// event is recorded or queried and no memory is given back: those calls are illegal
// while a stream captures, so the work waits for the end of the last capture.
#include "memory/caching_allocator.h"
#include "memory/allocation_observer.h"
#include "memory/allocator_block.h"
#include "memory/allocator_messages.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iterator>
#include <cstdio>
#include <mutex>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/error.h"

namespace ember::memory {

using namespace allocator_detail;

namespace {

// Larger requests would overflow the rounding; no device has that much memory anyway.
constexpr size_t kMaxRequest = SIZE_MAX / 4;

}  // namespace

struct CachingAllocator::Impl {
  std::unique_ptr<RawAllocator> raw;
  mutable std::mutex mutex;
  NodeCache nodes;  // before the containers that use it: destroyed after them
  Pool small_pool{BlockLess(), NodeAllocator<Block*>(&nodes)};
  Pool large_pool{BlockLess(), NodeAllocator<Block*>(&nodes)};

  // Private pools (Note [Private pools]): their free blocks, how many graphs own each,
  // and how many segments each still holds (a released pool is erased at zero).
  struct PrivatePool {
    explicit PrivatePool(NodeCache* nodes)
        : small{BlockLess(), NodeAllocator<Block*>(nodes)}, large{BlockLess(), NodeAllocator<Block*>(nodes)} {}
    Pool small;
    Pool large;
    int owners = 0;
    int64_t segments = 0;
  };
  std::unordered_map<PoolId, std::unique_ptr<PrivatePool>> private_pools;
  std::vector<std::pair<StreamId, PoolId>> captures;  // streams capturing now, and their pools
  std::vector<Block*> deferred;  // freed during a capture, events still to record
  size_t reserve_limit = 0;      // 0: none
  AllocatorSettings settings;
  uint64_t tick = 0;             // counts frees (Block::freed_at)
  BlockMap allocated{0, std::hash<void*>(), std::equal_to<void*>(), BlockMap::allocator_type(&nodes)};
  std::vector<Block*> spare_blocks;  // Block records reused by new_block

  // Quick lists: the small blocks of the default stream freed last, by exact size. A
  // training loop frees and asks for the same sizes step after step; this skips the
  // pools' tree searches, splits and merges for them. Bounded in count and bytes, and
  // emptied (into the pools) before segments are given back.
  static constexpr size_t kQuickMaxSize = 64 << 10;
  static constexpr size_t kQuickDepth = 16;
  static constexpr size_t kQuickMaxBytes = 4 << 20;
  bool use_quick;
  std::vector<Block*> quick[kQuickMaxSize / kMinBlockSize];
  size_t quick_bytes = 0;

  static size_t quick_index(size_t size) { return size / kMinBlockSize - 1; }

  Block* take_quick(size_t size, StreamId stream) {
    if (!use_quick || stream != 0 || size > kQuickMaxSize) return nullptr;
    std::vector<Block*>& list = quick[quick_index(size)];
    if (list.empty()) return nullptr;
    Block* b = list.back();
    list.pop_back();
    b->quick = false;
    quick_bytes -= b->size;
    stats.num_cache_hits++;
    return b;
  }

  bool keep_quick(Block* b) {
    if (!use_quick || b->stream != 0 || b->pool != 0 || !b->small || b->size > kQuickMaxSize ||
        quick_bytes + b->size > kQuickMaxBytes)
      return false;
    std::vector<Block*>& list = quick[quick_index(b->size)];
    if (list.size() >= kQuickDepth) return false;
    list.push_back(b);
    b->quick = true;
    quick_bytes += b->size;
    return true;
  }

  // Moves every quick block to its pool (merged with its free neighbours).
  void flush_quick() {
    for (std::vector<Block*>& list : quick) {
      for (Block* b : list) {
        b->quick = false;
        free_block(b);
      }
      list.clear();
    }
    quick_bytes = 0;
  }
  std::vector<std::pair<EventId, Block*>> pending;  // one entry per outstanding event
  // Completed events kept for reuse (RawAllocator::rerecord_event), bounded.
  static constexpr size_t kMaxSpareEvents = 1024;
  std::vector<EventId> spare_events;

  EventId take_event(StreamId stream) {
    while (!spare_events.empty()) {
      EventId e = spare_events.back();
      spare_events.pop_back();
      if (raw->rerecord_event(e, stream)) return e;
      raw->release_event(e);
    }
    return raw->record_event(stream);
  }

  void give_back_event(EventId e) {
    if (spare_events.size() < kMaxSpareEvents) spare_events.push_back(e);
    else raw->release_event(e);
  }
  MemoryStats stats;

  Impl(std::unique_ptr<RawAllocator> r, bool quick) : raw(std::move(r)), use_quick(quick) {
    EMBER_CHECK(raw != nullptr, "CachingAllocator: the raw allocator is null");
    allocated.reserve(4096);  // rehashing on the hot path would be a latency spike
  }
  ~Impl() {
    for (Block* b : spare_blocks) delete b;
  }

  // Block records are recycled for the same reason as the container nodes.
  Block* new_block(char* p, size_t size, StreamId stream, bool small, PoolId pool) {
    if (spare_blocks.empty()) return new Block(p, size, stream, small, pool);
    Block* b = spare_blocks.back();
    spare_blocks.pop_back();
    *b = Block(p, size, stream, small, pool);
    return b;
  }
  void delete_block(Block* b) { spare_blocks.push_back(b); }

  Pool& pool_of(PoolId pool, bool small) {
    if (pool == 0) return small ? small_pool : large_pool;
    PrivatePool& p = *private_pools.at(pool);
    return small ? p.small : p.large;
  }
  Pool& pool_of(const Block* b) { return pool_of(b->pool, b->small); }

  // The private pool a request on `stream` is served from (0: the shared pools).
  PoolId capture_pool(StreamId stream) const {
    for (const auto& [s, pool] : captures)
      if (s == stream) return pool;
    return 0;
  }

  // ---- allocation ----

  void* allocate(size_t nbytes, StreamId stream, bool exact = false) {
    if (!pending.empty() && captures.empty()) process_events();
    if (nbytes > kMaxRequest) throw_oom(nbytes);
    size_t size = round_up(std::max<size_t>(nbytes, 1), kMinBlockSize);
    bool small = size <= kSmallSize;
    PoolId pool = captures.empty() ? 0 : capture_pool(stream);
    Block* block = pool == 0 ? take_quick(size, stream) : nullptr;
    if (!block) block = split(get_block(small, stream, size, nbytes, pool), size);
    block->allocated = true;  // before a cut: the freed tail must not merge back into it
    if (exact && block->size > size) free_block(cut(block, size));
    count_allocated(block, nbytes);
    return block->ptr;
  }

  // A block handed out (requested bytes asked for it): in allocated_, in the statistics.
  void count_allocated(Block* b, size_t requested) {
    b->allocated = true;
    b->requested = requested;
    allocated.emplace(b->ptr, b);
    stats.num_allocs++;
    stats.active_allocs++;
    stats.allocated_bytes += static_cast<int64_t>(b->size);
    stats.peak_allocated_bytes = std::max(stats.peak_allocated_bytes, stats.allocated_bytes);
  }

  // The block at it given back by its user (its memory's fate is the caller's).
  Block* count_freed(BlockMap::iterator it) {
    Block* b = it->second;
    allocated.erase(it);
    b->allocated = false;
    b->requested = 0;
    stats.num_frees++;
    stats.active_allocs--;
    stats.allocated_bytes -= static_cast<int64_t>(b->size);
    return b;
  }

  Block* get_block(bool small, StreamId stream, size_t size, size_t nbytes, PoolId pool) {
    if (Block* b = take_free(pool, small, stream, size)) return b;
    if (Block* b = alloc_segment(pool, small, stream, size)) return b;
    // During a capture nothing can be waited for or given back (Note [Private pools]).
    if (!captures.empty()) throw_oom(nbytes);
    // The device is full: wait for the streams that still use freed blocks, reuse
    // those blocks, else give the cache back to the device and try once more.
    synchronize_pending();
    if (Block* b = take_free(pool, small, stream, size)) return b;
    release_cached_segments();
    if (Block* b = alloc_segment(pool, small, stream, size)) return b;
    throw_oom(nbytes);
  }

  // Best fit: the smallest free block of this stream that holds `size` bytes. Under
  // max_split_size, a block that large serves only a request of nearly its size (the
  // larger blocks after it in the set are larger still, so the search stops there).
  Block* take_free(PoolId pool_id, bool small, StreamId stream, size_t size) {
    Pool& pool = pool_of(pool_id, small);
    auto it = pool.lower_bound(BlockKey{stream, size, 0});
    if (it == pool.end() || (*it)->stream != stream) return nullptr;
    Block* b = *it;
    const size_t max_split = settings.max_split_size;
    if (size < max_split && b->size >= max_split) return nullptr;
    if (size >= max_split && b->size >= size + kLargeSegment) return nullptr;
    pool.erase(it);
    stats.num_cache_hits++;
    return b;
  }

  size_t segment_size(bool small, size_t size) const {
    if (small) return kSmallSegment;
    if (settings.large_segments && size < kMinLargeAlloc) return kLargeSegment;
    return round_up(size, kLargeRound);
  }

  bool over_limit(size_t seg_size) const {
    return reserve_limit != 0 && static_cast<size_t>(stats.reserved_bytes) + seg_size > reserve_limit;
  }

  // With a reserve limit and a garbage_collection_threshold: before the reservation
  // grows past threshold * limit, whole free segments of the shared pools go back to
  // the device, least recently freed first, until the new segment fits under it.
  void collect_garbage(size_t seg_size) {
    const double threshold = settings.garbage_collection_threshold;
    if (reserve_limit == 0 || threshold <= 0.0 || !captures.empty()) return;
    const auto target = static_cast<size_t>(threshold * static_cast<double>(reserve_limit));
    if (static_cast<size_t>(stats.reserved_bytes) + seg_size <= target) return;
    flush_quick();
    std::vector<Block*> whole;
    for (Pool* pool : {&small_pool, &large_pool})
      for (Block* b : *pool)
        if (b->is_whole_segment()) whole.push_back(b);
    std::sort(whole.begin(), whole.end(),
              [](const Block* a, const Block* b) { return a->freed_at < b->freed_at; });
    for (Block* b : whole) {
      if (static_cast<size_t>(stats.reserved_bytes) + seg_size <= target) break;
      pool_of(b).erase(b);
      release_segment(b);
    }
  }

  Block* alloc_segment(PoolId pool, bool small, StreamId stream, size_t size) {
    size_t seg_size = segment_size(small, size);
    collect_garbage(seg_size);
    if (over_limit(seg_size)) return nullptr;
    void* p = raw->raw_alloc(seg_size);
    if (!p) return nullptr;
    stats.num_raw_allocs++;
    stats.segments++;
    if (pool != 0) private_pools.at(pool)->segments++;
    stats.reserved_bytes += static_cast<int64_t>(seg_size);
    stats.peak_reserved_bytes = std::max(stats.peak_reserved_bytes, stats.reserved_bytes);
    return new_block(static_cast<char*>(p), seg_size, stream, small, pool);
  }

  // Gives a whole free segment back to the device (it is in no pool set).
  void release_segment(Block* b) {
    raw->raw_free(b->ptr);
    stats.num_raw_frees++;
    stats.segments--;
    stats.reserved_bytes -= static_cast<int64_t>(b->size);
    if (b->pool != 0) private_pools.at(b->pool)->segments--;
    delete_block(b);
  }

  // Forgets a private pool that no graph owns and that holds no segment.
  void erase_pool_if_empty(PoolId pool) {
    auto it = private_pools.find(pool);
    if (it != private_pools.end() && it->second->owners == 0 && it->second->segments == 0)
      private_pools.erase(it);
  }

  // Small blocks split down to the minimum; large ones only when the rest is itself a
  // large request, so large segments are not cut into slivers no large request fits,
  // and (max_split_size) not for requests that large.
  Block* split(Block* b, size_t size) {
    size_t rest = b->size - size;
    bool worth_it = b->small ? rest >= kMinBlockSize
                             : rest > kSmallSize && size < settings.max_split_size;
    if (!worth_it) return b;
    Block* r = new_block(b->ptr + size, rest, b->stream, b->small, b->pool);
    r->prev = b;
    r->next = b->next;
    if (r->next) r->next->prev = r;
    b->next = r;
    b->size = size;
    pool_of(r).insert(r);
    return b;
  }

  [[noreturn]] void throw_oom(size_t nbytes) {
    stats.num_ooms++;
    std::string limit = reserve_limit == 0 ? "" : detail::str(
        "; the process may reserve at most ", format_bytes(reserve_limit),
        " (set_per_process_memory_fraction)");
    std::string capture = captures.empty() ? "" :
        "; a CUDA graph capture is underway, so the cache was not released to make room";
    throw OutOfMemoryError(detail::str(
        device_kind(raw->device_name()), " out of memory: tried to allocate ", format_bytes(nbytes),
        "; ", format_bytes(static_cast<size_t>(stats.allocated_bytes)), " allocated, ",
        format_bytes(static_cast<size_t>(stats.reserved_bytes)),
        " reserved by ember's caching allocator (device ", raw->device_name(), ")", limit, capture));
  }

  // ---- free ----

  BlockMap::iterator find_allocated(void* ptr, const char* what) {
    auto it = allocated.find(ptr);
    EMBER_CHECK(it != allocated.end(), "CachingAllocator::", what, ": pointer ", ptr,
                " was not allocated by the ", raw->device_name(),
                " caching allocator (or was already freed)");
    return it;
  }

  void free(void* ptr) {
    Block* b = count_freed(find_allocated(ptr, "free"));
    if (b->stream_uses.empty()) {
      if (!keep_quick(b)) free_block(b);
      return;
    }
    if (!captures.empty()) {  // no events during a capture (Note [Private pools])
      b->event_count = 1;
      deferred.push_back(b);
      return;
    }
    record_use_events(b);
  }

  // Cuts b after its first `first` bytes; returns the rest, a block in no pool.
  Block* cut(Block* b, size_t first) {
    Block* r = new_block(b->ptr + first, b->size - first, b->stream, b->small, b->pool);
    r->prev = b;
    r->next = b->next;
    if (r->next) r->next->prev = r;
    b->next = r;
    b->size = first;
    return r;
  }

  void release_all_but(void* ptr, const std::vector<std::pair<size_t, size_t>>& keep) {
    auto it = find_allocated(ptr, "release_all_but");
    const Block* b = it->second;
    size_t end = 0;
    for (const auto& [offset, size] : keep) {
      EMBER_CHECK_VALUE(offset % kMinBlockSize == 0 && size % kMinBlockSize == 0 && size > 0 &&
                            offset >= end && size <= b->size && offset <= b->size - size,
                        "CachingAllocator::release_all_but: bad range {", offset, ", ", size,
                        "} of a block of ", b->size, " bytes");
      end = offset + size;
    }
    EMBER_CHECK_VALUE(b->stream_uses.empty(), "CachingAllocator::release_all_but: the block is "
                      "used on other streams");
    std::vector<Block*> gaps;
    Block* rest = count_freed(it);  // the part not yet assigned, from byte `at` of the block
    size_t at = 0;
    for (const auto& [offset, size] : keep) {
      if (offset > at) {
        gaps.push_back(rest);
        rest = cut(rest, offset - at);
      }
      Block* kept = rest;
      kept->allocated = true;  // before the cut, as in allocate
      rest = size < kept->size ? cut(kept, size) : nullptr;
      count_allocated(kept, size);
      at = offset + size;
    }
    if (rest) gaps.push_back(rest);
    for (Block* g : gaps) free_block(g);
  }

  // Other streams may still read or write the block: reuse waits for their events.
  void record_use_events(Block* b) {
    for (StreamId s : b->stream_uses) {
      pending.emplace_back(take_event(s), b);
      b->event_count++;
    }
    b->stream_uses.clear();
  }

  // Returns a block to its pool, merged with its free neighbours. A whole segment of a
  // released private pool goes back to the device instead.
  void free_block(Block* b) {
    b->freed_at = ++tick;
    merge(b, b->prev);
    merge(b, b->next);
    if (b->pool != 0 && b->is_whole_segment() && private_pools.at(b->pool)->owners == 0 &&
        captures.empty()) {
      PoolId pool = b->pool;
      release_segment(b);
      erase_pool_if_empty(pool);
      return;
    }
    pool_of(b).insert(b);
  }

  void merge(Block* dst, Block* src) {
    if (!src || !src->is_free()) return;
    pool_of(src).erase(src);  // before its size/address (the set's key) change
    if (src == dst->prev) {
      dst->ptr = src->ptr;
      dst->prev = src->prev;
      if (dst->prev) dst->prev->next = dst;
    } else {
      dst->next = src->next;
      if (dst->next) dst->next->prev = dst;
    }
    dst->size += src->size;
    delete_block(src);
  }

  // Waits for every pending block's events, then frees those blocks.
  void synchronize_pending() {
    for (auto& [event, block] : pending) raw->synchronize_event(event);
    process_events();
  }

  // Moves blocks whose events have all completed to the free pools.
  void process_events() {
    size_t kept = 0;
    for (auto& [event, block] : pending) {
      if (!raw->event_done(event)) {
        pending[kept++] = {event, block};
        continue;
      }
      give_back_event(event);
      if (--block->event_count == 0) free_block(block);
    }
    pending.resize(kept);
  }

  // Gives every free, unsplit segment of the shared pools back to the device (private
  // pools keep theirs while a graph owns them).
  void release_cached_segments() {
    flush_quick();  // quick blocks merge back, so whole free segments show
    for (Pool* pool : {&small_pool, &large_pool}) release_whole_segments(*pool);
  }

  void release_whole_segments(Pool& pool) {
    for (auto it = pool.begin(); it != pool.end();) {
      Block* b = *it;
      if (!b->is_whole_segment()) {
        ++it;
        continue;
      }
      it = pool.erase(it);
      release_segment(b);
    }
  }

  // ---- private pools (Note [Private pools]) ----

  PrivatePool& private_pool(PoolId pool, const char* what) {
    auto it = private_pools.find(pool);
    EMBER_CHECK(it != private_pools.end() && it->second->owners > 0, "CachingAllocator::", what,
                ": memory pool ", pool, " is not owned by any CUDA graph");
    return *it->second;
  }

  void retain_pool(PoolId pool) {
    EMBER_CHECK(pool != 0, "CachingAllocator::retain_pool: pool id 0 is the shared pool");
    auto& slot = private_pools[pool];
    if (!slot) slot = std::make_unique<PrivatePool>(&nodes);
    slot->owners++;
  }

  void release_pool(PoolId pool) {
    PrivatePool& p = private_pool(pool, "release_pool");
    if (p.owners == 1)
      for (const auto& [stream, captured] : captures)
        EMBER_CHECK(captured != pool, "CachingAllocator::release_pool: pool ", pool,
                    " is still capturing on stream ", stream);
    if (--p.owners > 0) return;
    if (!captures.empty()) return;  // its segments go when the captures end
    release_dead_pool(pool);
  }

  // Gives back the free segments of a pool no graph owns (and erases the pool when it
  // holds none).
  void release_dead_pool(PoolId pool) {
    auto it = private_pools.find(pool);
    if (it == private_pools.end()) return;
    release_whole_segments(it->second->small);
    release_whole_segments(it->second->large);
    erase_pool_if_empty(pool);
  }

  void begin_capture(StreamId stream, PoolId pool) {
    private_pool(pool, "begin_capture");
    EMBER_CHECK(capture_pool(stream) == 0, "CachingAllocator::begin_capture: stream ", stream,
                " is already capturing");
    captures.emplace_back(stream, pool);
  }

  void end_capture(StreamId stream) {
    auto it = std::find_if(captures.begin(), captures.end(),
                           [&](const auto& c) { return c.first == stream; });
    EMBER_CHECK(it != captures.end(), "CachingAllocator::end_capture: stream ", stream,
                " is not capturing");
    captures.erase(it);
    if (!captures.empty()) return;
    // The last capture ended: the work that waited for it.
    for (Block* b : deferred) {
      b->event_count = 0;
      record_use_events(b);
      if (b->event_count == 0) free_block(b);
    }
    deferred.clear();
    std::vector<PoolId> dead;
    for (const auto& [id, p] : private_pools)
      if (p->owners == 0) dead.push_back(id);
    for (PoolId id : dead) release_dead_pool(id);
  }

  // ---- teardown ----

  // Returns every segment, in use or not: pointers into it die with the allocator.
  // The first block of every segment, in address order.
  std::vector<Block*> segment_heads() const {
    std::vector<Block*> heads;
    auto note_head = [&](Block* b) {
      while (b->prev) b = b->prev;
      heads.push_back(b);
    };
    for (Block* b : small_pool) note_head(b);
    for (Block* b : large_pool) note_head(b);
    for (const auto& [id, p] : private_pools) {
      for (Block* b : p->small) note_head(b);
      for (Block* b : p->large) note_head(b);
    }
    for (auto& [ptr, b] : allocated) note_head(b);
    for (auto& [event, b] : pending) note_head(b);
    for (Block* b : deferred) note_head(b);
    for (const std::vector<Block*>& list : quick)
      for (Block* b : list) note_head(b);
    std::sort(heads.begin(), heads.end(), [](const Block* a, const Block* b) {
      return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
    });
    heads.erase(std::unique(heads.begin(), heads.end()), heads.end());
    return heads;
  }

  std::vector<MemorySegment> snapshot() const {
    std::vector<MemorySegment> segments;
    for (const Block* head : segment_heads()) {
      MemorySegment seg;
      seg.address = reinterpret_cast<uintptr_t>(head->ptr);
      seg.stream = head->stream;
      seg.is_small = head->small;
      seg.pool_id = head->pool;
      for (const Block* b = head; b; b = b->next) {
        MemoryBlock block;
        block.address = reinterpret_cast<uintptr_t>(b->ptr);
        block.size = static_cast<int64_t>(b->size);
        block.requested_size = static_cast<int64_t>(b->requested);
        block.state = b->allocated ? "active_allocated"
                      : b->event_count > 0 ? "active_pending_free" : "inactive";
        seg.total_size += block.size;
        if (b->allocated) seg.allocated_size += block.size;
        if (b->allocated || b->event_count > 0) seg.active_size += block.size;
        seg.requested_size += block.requested_size;
        seg.blocks.push_back(std::move(block));
      }
      segments.push_back(std::move(seg));
    }
    return segments;
  }

  void release_everything() {
    for (auto& [event, block] : pending) raw->release_event(event);
    for (EventId e : spare_events) raw->release_event(e);
    for (Block* head : segment_heads()) {
      raw->raw_free(head->ptr);
      for (Block* b = head; b;) delete std::exchange(b, b->next);
    }
  }

  std::string summary() const {
    auto pool_line = [](const char* name, const Pool& pool) {
      size_t bytes = 0;
      for (const Block* b : pool) bytes += b->size;
      return detail::str("  ", name, " pool: ", pool.size(), " free blocks, ", format_bytes(bytes),
                         " cached\n");
    };
    auto fmt = [](int64_t n) { return format_bytes(static_cast<size_t>(n)); };
    return detail::str(
        "ember caching allocator (", raw->device_name(), ")\n",
        "  allocated: ", fmt(stats.allocated_bytes), " (peak ", fmt(stats.peak_allocated_bytes),
        "), reserved: ", fmt(stats.reserved_bytes), " (peak ", fmt(stats.peak_reserved_bytes),
        ")\n", pool_line("small", small_pool), pool_line("large", large_pool),
        "  quick lists: ", format_bytes(quick_bytes), " in small blocks kept by size\n",
        "  private pools (CUDA graphs): ", private_pools.size(), ", captures underway: ",
        captures.size(), "\n",
        "  allocs: ", stats.num_allocs, ", frees: ", stats.num_frees,
        ", cache hits: ", stats.num_cache_hits, ", raw allocs: ", stats.num_raw_allocs,
        ", raw frees: ", stats.num_raw_frees, ", ooms: ", stats.num_ooms,
        ", blocks awaiting stream events: ", pending.size(), "\n");
  }
};

CachingAllocator::CachingAllocator(std::unique_ptr<RawAllocator> raw, bool quick_lists)
    : impl_(std::make_unique<Impl>(std::move(raw), quick_lists)) {}

CachingAllocator::~CachingAllocator() { impl_->release_everything(); }

void* CachingAllocator::allocate(size_t nbytes, StreamId stream) {
  AllocationObserver* observer = thread_observer(this);
  if (observer)
    if (void* ptr = observer->serve(nbytes)) return ptr;
  void* ptr;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    ptr = impl_->allocate(nbytes, stream);
  }
  if (observer) observer->served_by_allocator(ptr, nbytes);
  return ptr;
}

void* CachingAllocator::allocate_exact(size_t nbytes) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->allocate(nbytes, 0, /*exact=*/true);
}

void CachingAllocator::free(void* ptr) {
  if (!ptr) return;
  if (AllocationObserver* observer = thread_observer(this); observer && observer->on_free(ptr))
    return;
  // Memory an observer served, freed off its thread (lib/memory/allocation_observer.h).
  if (any_served_ranges() && free_in_served_range(ptr)) return;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->free(ptr);
}

void CachingAllocator::record_stream(void* ptr, StreamId stream) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  Block* b = impl_->find_allocated(ptr, "record_stream")->second;
  if (stream == b->stream) return;
  auto& uses = b->stream_uses;
  if (std::find(uses.begin(), uses.end(), stream) == uses.end()) uses.push_back(stream);
}

void CachingAllocator::release_all_but(void* ptr, const std::vector<std::pair<size_t, size_t>>& keep) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->release_all_but(ptr, keep);
}

bool CachingAllocator::owns(void* ptr) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->allocated.count(ptr) != 0;
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (!impl_->captures.empty()) return;  // nothing can be given back during a capture
  impl_->synchronize_pending();
  impl_->release_cached_segments();
}

MemoryStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->stats;
}

void CachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->stats.peak_allocated_bytes = impl_->stats.allocated_bytes;
  impl_->stats.peak_reserved_bytes = impl_->stats.reserved_bytes;
}

void CachingAllocator::reset_accumulated_stats() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  MemoryStats& s = impl_->stats;
  s.num_allocs = s.num_frees = s.num_raw_allocs = s.num_raw_frees = 0;
  s.num_cache_hits = s.num_ooms = 0;
}

std::string CachingAllocator::summary() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->summary();
}

std::vector<MemorySegment> CachingAllocator::snapshot() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->snapshot();
}

void CachingAllocator::configure(const AllocatorSettings& settings) {
  EMBER_CHECK_VALUE(settings.max_split_size > kSmallSize, "CachingAllocator: max_split_size must be "
                    "more than 1 MiB, got ", settings.max_split_size, " bytes");
  EMBER_CHECK_VALUE(settings.garbage_collection_threshold >= 0.0 &&
                        settings.garbage_collection_threshold < 1.0,
                    "CachingAllocator: garbage_collection_threshold must lie in [0, 1), got ",
                    settings.garbage_collection_threshold);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->settings = settings;
}

AllocatorSettings CachingAllocator::settings() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->settings;
}

void CachingAllocator::set_reserve_limit(size_t bytes) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->reserve_limit = bytes;
}

size_t CachingAllocator::reserve_limit() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->reserve_limit;
}

void CachingAllocator::retain_pool(PoolId pool) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->retain_pool(pool);
}

void CachingAllocator::release_pool(PoolId pool) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->release_pool(pool);
}

void CachingAllocator::begin_capture(StreamId stream, PoolId pool) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->begin_capture(stream, pool);
}

void CachingAllocator::end_capture(StreamId stream) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->end_capture(stream);
}

bool CachingAllocator::capture_underway() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return !impl_->captures.empty();
}

}  // namespace ember::memory
