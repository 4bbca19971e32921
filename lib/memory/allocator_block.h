// The blocks of the caching allocator (caching_allocator.cpp): a Block is one piece of a
// raw segment, linked to its neighbours in address order; free blocks wait in a Pool, a
// set ordered by (stream, size, address), so best fit is one lower_bound.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "memory/caching_allocator.h"
#include "memory/node_cache.h"

namespace ember::memory::allocator_detail {

struct Block {
  char* ptr;
  size_t size;
  StreamId stream;
  bool small;       // which pool it returns to
  PoolId pool = 0;  // 0: the shared pools; otherwise a private pool (Note [Private pools])
  size_t requested = 0;  // bytes asked for, while allocated (memory_snapshot)
  uint64_t freed_at = 0;  // the allocator's tick when last freed (garbage collection order)
  bool allocated = false;
  bool quick = false;     // waiting in a quick list
  int event_count = 0;    // outstanding events of a pending block
  Block* prev = nullptr;  // neighbours within the segment
  Block* next = nullptr;
  std::vector<StreamId> stream_uses;  // other streams (record_stream); rarely non-empty

  Block(char* p, size_t s, StreamId st, bool sm, PoolId pl = 0)
      : ptr(p), size(s), stream(st), small(sm), pool(pl) {}
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

using Pool = std::set<Block*, BlockLess, NodeAllocator<Block*>>;
using BlockMap = std::unordered_map<void*, Block*, std::hash<void*>, std::equal_to<void*>,
                                    NodeAllocator<std::pair<void* const, Block*>>>;

constexpr size_t round_up(size_t n, size_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

}  // namespace ember::memory::allocator_detail
