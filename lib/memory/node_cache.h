// NodeCache and NodeAllocator: the caching allocator's own recycling of container
// nodes (lib/memory/caching_allocator.cpp), so a tensor's allocation costs no malloc
// for the bookkeeping of its block.
#pragma once
#include <cstddef>
#include <new>
#include <vector>

namespace ember::memory {

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

}  // namespace ember::memory
