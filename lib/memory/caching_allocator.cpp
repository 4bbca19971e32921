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
#include "memory/caching_allocator.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <mutex>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/error.h"

namespace ember::memory {

namespace {

struct Block {
  char* ptr;
  size_t size;
  StreamId stream;
  bool small;  // which pool it returns to
  bool allocated = false;
  bool quick = false;     // waiting in a quick list
  int event_count = 0;    // outstanding events of a pending block
  Block* prev = nullptr;  // neighbours within the segment
  Block* next = nullptr;
  std::vector<StreamId> stream_uses;  // other streams (record_stream); rarely non-empty

  Block(char* p, size_t s, StreamId st, bool sm) : ptr(p), size(s), stream(st), small(sm) {}
  bool is_free() const { return !allocated && !quick && event_count == 0; }
  bool is_whole_segment() const { return !prev && !next; }
};

// Lookups build this key on the stack: no Block (and no heap allocation) per search.
struct BlockKey {
  StreamId stream;
  size_t size;
  uintptr_t addr;
};

struct BlockLess {
  using is_transparent = void;
  static BlockKey key(const Block* b) {
    return {b->stream, b->size, reinterpret_cast<uintptr_t>(b->ptr)};
  }
  static BlockKey key(const BlockKey& k) { return k; }
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    BlockKey x = key(a), y = key(b);
    if (x.stream != y.stream) return x.stream < y.stream;
    if (x.size != y.size) return x.size < y.size;
    return x.addr < y.addr;
  }
};

// Recycles the fixed-size nodes of the pools and of the allocated-block map: a set or
// map node per block would otherwise cost a malloc and a free per tensor, which is
// most of a small op's allocation time. Only touched under the allocator's mutex.
class NodeCache {
 public:
  static constexpr size_t kSlot = 64;  // a std::set or std::unordered_map node fits
  NodeCache() = default;
  NodeCache(const NodeCache&) = delete;
  NodeCache& operator=(const NodeCache&) = delete;
  ~NodeCache() {
    for (void* p : spare_) ::operator delete(p);
  }
  void* get(size_t bytes) {
    if (bytes > kSlot) return ::operator new(bytes);
    if (spare_.empty()) return ::operator new(kSlot);
    void* p = spare_.back();
    spare_.pop_back();
    return p;
  }
  void put(void* p, size_t bytes) {
    if (bytes > kSlot) return ::operator delete(p);
    spare_.push_back(p);
  }

 private:
  std::vector<void*> spare_;
};

// The containers' allocator: single nodes from the NodeCache, arrays (hash buckets) from new.
template <typename T>
struct NodeAllocator {
  using value_type = T;
  NodeCache* cache;
  explicit NodeAllocator(NodeCache* c) : cache(c) {}
  template <typename U>
  NodeAllocator(const NodeAllocator<U>& other) : cache(other.cache) {}
  T* allocate(size_t n) {
    return static_cast<T*>(n == 1 ? cache->get(sizeof(T)) : ::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) {
    if (n == 1) cache->put(p, sizeof(T));
    else ::operator delete(p);
  }
  template <typename U>
  bool operator==(const NodeAllocator<U>& other) const { return cache == other.cache; }
  template <typename U>
  bool operator!=(const NodeAllocator<U>& other) const { return cache != other.cache; }
};

using Pool = std::set<Block*, BlockLess, NodeAllocator<Block*>>;
using BlockMap = std::unordered_map<void*, Block*, std::hash<void*>, std::equal_to<void*>,
                                    NodeAllocator<std::pair<void* const, Block*>>>;

constexpr size_t round_up(size_t n, size_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

// Larger requests would overflow the rounding; no device has that much memory anyway.
constexpr size_t kMaxRequest = SIZE_MAX / 4;

std::string format_bytes(size_t n) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[48];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%zu B", n);
  else
    std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
  return buf;
}

// "cuda:0" -> "CUDA", for the "CUDA out of memory" wording users search for.
std::string device_kind(const char* name) {
  std::string kind(name);
  kind = kind.substr(0, kind.find(':'));
  for (char& c : kind) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return kind;
}

}  // namespace

struct CachingAllocator::Impl {
  std::unique_ptr<RawAllocator> raw;
  mutable std::mutex mutex;
  NodeCache nodes;  // before the containers that use it: destroyed after them
  Pool small_pool{BlockLess(), NodeAllocator<Block*>(&nodes)};
  Pool large_pool{BlockLess(), NodeAllocator<Block*>(&nodes)};
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
    if (!use_quick || b->stream != 0 || !b->small || b->size > kQuickMaxSize ||
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
  MemoryStats stats;

  Impl(std::unique_ptr<RawAllocator> r, bool quick) : raw(std::move(r)), use_quick(quick) {
    EMBER_CHECK(raw != nullptr, "CachingAllocator: the raw allocator is null");
    allocated.reserve(4096);  // rehashing on the hot path would be a latency spike
  }
  ~Impl() {
    for (Block* b : spare_blocks) delete b;
  }

  // Block records are recycled for the same reason as the container nodes.
  Block* new_block(char* p, size_t size, StreamId stream, bool small) {
    if (spare_blocks.empty()) return new Block(p, size, stream, small);
    Block* b = spare_blocks.back();
    spare_blocks.pop_back();
    *b = Block(p, size, stream, small);
    return b;
  }
  void delete_block(Block* b) { spare_blocks.push_back(b); }

  Pool& pool_of(bool small) { return small ? small_pool : large_pool; }

  // ---- allocation ----

  void* allocate(size_t nbytes, StreamId stream) {
    if (!pending.empty()) process_events();
    if (nbytes > kMaxRequest) throw_oom(nbytes);
    size_t size = round_up(std::max<size_t>(nbytes, 1), kMinBlockSize);
    bool small = size <= kSmallSize;
    Block* block = take_quick(size, stream);
    if (!block) block = split(get_block(small, stream, size, nbytes), size);
    block->allocated = true;
    allocated.emplace(block->ptr, block);
    stats.num_allocs++;
    stats.allocated_bytes += static_cast<int64_t>(block->size);
    stats.peak_allocated_bytes = std::max(stats.peak_allocated_bytes, stats.allocated_bytes);
    return block->ptr;
  }

  Block* get_block(bool small, StreamId stream, size_t size, size_t nbytes) {
    if (Block* b = take_free(small, stream, size)) return b;
    if (Block* b = alloc_segment(small, stream, size)) return b;
    // The device is full: reuse blocks whose streams have finished, else give the
    // cache back to the device and try once more.
    process_events();
    if (Block* b = take_free(small, stream, size)) return b;
    release_cached_segments();
    if (Block* b = alloc_segment(small, stream, size)) return b;
    throw_oom(nbytes);
  }

  // Best fit: the smallest free block of this stream that holds `size` bytes.
  Block* take_free(bool small, StreamId stream, size_t size) {
    Pool& pool = pool_of(small);
    auto it = pool.lower_bound(BlockKey{stream, size, 0});
    if (it == pool.end() || (*it)->stream != stream) return nullptr;
    Block* b = *it;
    pool.erase(it);
    stats.num_cache_hits++;
    return b;
  }

  Block* alloc_segment(bool small, StreamId stream, size_t size) {
    size_t seg_size = small ? kSmallSegment : round_up(size, kLargeRound);
    void* p = raw->raw_alloc(seg_size);
    if (!p) return nullptr;
    stats.num_raw_allocs++;
    stats.reserved_bytes += static_cast<int64_t>(seg_size);
    stats.peak_reserved_bytes = std::max(stats.peak_reserved_bytes, stats.reserved_bytes);
    return new_block(static_cast<char*>(p), seg_size, stream, small);
  }

  // Small blocks split down to the minimum; large ones only when the rest is itself a
  // large request, so large segments are not cut into slivers no large request fits.
  Block* split(Block* b, size_t size) {
    size_t rest = b->size - size;
    bool worth_it = b->small ? rest >= kMinBlockSize : rest > kSmallSize;
    if (!worth_it) return b;
    Block* r = new_block(b->ptr + size, rest, b->stream, b->small);
    r->prev = b;
    r->next = b->next;
    if (r->next) r->next->prev = r;
    b->next = r;
    b->size = size;
    pool_of(r->small).insert(r);
    return b;
  }

  [[noreturn]] void throw_oom(size_t nbytes) {
    stats.num_ooms++;
    throw OutOfMemoryError(detail::str(
        device_kind(raw->device_name()), " out of memory: tried to allocate ", format_bytes(nbytes),
        "; ", format_bytes(static_cast<size_t>(stats.allocated_bytes)), " allocated, ",
        format_bytes(static_cast<size_t>(stats.reserved_bytes)),
        " reserved by ember's caching allocator (device ", raw->device_name(), ")"));
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
    auto it = find_allocated(ptr, "free");
    Block* b = it->second;
    allocated.erase(it);
    b->allocated = false;
    stats.num_frees++;
    stats.allocated_bytes -= static_cast<int64_t>(b->size);
    if (b->stream_uses.empty()) {
      if (!keep_quick(b)) free_block(b);
      return;
    }
    // Other streams may still read or write the block: reuse waits for their events.
    for (StreamId s : b->stream_uses) {
      pending.emplace_back(raw->record_event(s), b);
      b->event_count++;
    }
    b->stream_uses.clear();
  }

  // Returns a block to its pool, merged with its free neighbours.
  void free_block(Block* b) {
    merge(b, b->prev);
    merge(b, b->next);
    pool_of(b->small).insert(b);
  }

  void merge(Block* dst, Block* src) {
    if (!src || !src->is_free()) return;
    pool_of(src->small).erase(src);  // before its size/address (the set's key) change
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

  // Moves blocks whose events have all completed to the free pools.
  void process_events() {
    size_t kept = 0;
    for (auto& [event, block] : pending) {
      if (!raw->event_done(event)) {
        pending[kept++] = {event, block};
        continue;
      }
      raw->release_event(event);
      if (--block->event_count == 0) free_block(block);
    }
    pending.resize(kept);
  }

  // Gives every free, unsplit segment back to the device.
  void release_cached_segments() {
    flush_quick();  // quick blocks merge back, so whole free segments show
    for (Pool* pool : {&small_pool, &large_pool}) {
      for (auto it = pool->begin(); it != pool->end();) {
        Block* b = *it;
        if (!b->is_whole_segment()) {
          ++it;
          continue;
        }
        it = pool->erase(it);
        raw->raw_free(b->ptr);
        stats.num_raw_frees++;
        stats.reserved_bytes -= static_cast<int64_t>(b->size);
        delete_block(b);
      }
    }
  }

  // ---- teardown ----

  // Returns every segment, in use or not: pointers into it die with the allocator.
  void release_everything() {
    for (auto& [event, block] : pending) raw->release_event(event);
    std::vector<Block*> heads;
    auto note_head = [&](Block* b) {
      while (b->prev) b = b->prev;
      heads.push_back(b);
    };
    for (Block* b : small_pool) note_head(b);
    for (Block* b : large_pool) note_head(b);
    for (auto& [ptr, b] : allocated) note_head(b);
    for (auto& [event, b] : pending) note_head(b);
    for (const std::vector<Block*>& list : quick)
      for (Block* b : list) note_head(b);
    std::sort(heads.begin(), heads.end());
    heads.erase(std::unique(heads.begin(), heads.end()), heads.end());
    for (Block* head : heads) {
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
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->allocate(nbytes, stream);
}

void CachingAllocator::free(void* ptr) {
  if (!ptr) return;
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

bool CachingAllocator::owns(void* ptr) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->allocated.count(ptr) != 0;
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->process_events();
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

std::string CachingAllocator::summary() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->summary();
}

}  // namespace ember::memory
