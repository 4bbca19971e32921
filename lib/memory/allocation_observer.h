// AllocationObserver: a per-thread window on a CachingAllocator's requests, for a
// caller that knows its future better than the allocator does. The jit runtime
// (lib/jit/runtime/) uses one to log the requests of a graph's first run, and then
// to serve the same requests of later runs from one pre-planned arena.
//
// An observer is installed for one thread and one allocator (ScopedAllocationObserver).
// Requests made on that thread ask it first: serve() may hand back memory of its own
// (the allocator then neither serves nor counts the request), or nullptr, and the
// allocator serves the request as usual and reports where (served_by_allocator).
// Frees on that thread ask it first too (on_free): it either takes the pointer as
// its own or lets the allocator free it.
//
// Memory an observer served may be freed on another thread, or after the observer
// was removed from its thread. So an observer that serves memory registers the range
// it serves from (register_served_range) while it does: a free of a pointer in it is
// passed to the range's owner, from any thread. Other frees pay one atomic load for
// this while no range is registered, and a short locked search while one is.
#pragma once
#include <atomic>
#include <cstddef>

namespace ember::memory {

class CachingAllocator;

class AllocationObserver {
 public:
  virtual ~AllocationObserver() = default;
  // A request of nbytes: memory to serve it from, or nullptr to let the allocator.
  virtual void* serve(size_t nbytes) noexcept = 0;
  // The allocator served a request (one serve() declined) at ptr.
  virtual void served_by_allocator(void* ptr, size_t nbytes) noexcept = 0;
  // ptr is being freed: true when it is memory this observer served (it has now
  // released it; the allocator does nothing), false for the allocator to free it.
  virtual bool on_free(void* ptr) noexcept = 0;
};

namespace observer_state {
extern constinit thread_local AllocationObserver* t_observer;
extern constinit thread_local const CachingAllocator* t_observed_allocator;
extern std::atomic<int> g_served_ranges;
}  // namespace observer_state

// The observer of the calling thread's requests to `allocator`, or nullptr.
inline AllocationObserver* thread_observer(const CachingAllocator* allocator) {
  AllocationObserver* o = observer_state::t_observer;
  return o && observer_state::t_observed_allocator == allocator ? o : nullptr;
}

// Installs an observer for the calling thread's requests to one allocator for its
// lifetime, then restores the one there was before.
class ScopedAllocationObserver {
 public:
  ScopedAllocationObserver(const CachingAllocator& allocator, AllocationObserver* observer);
  ~ScopedAllocationObserver();
  ScopedAllocationObserver(const ScopedAllocationObserver&) = delete;
  ScopedAllocationObserver& operator=(const ScopedAllocationObserver&) = delete;

 private:
  AllocationObserver* previous_;
  const CachingAllocator* previous_allocator_;
};

// Whether the calling thread has an observer installed (for any allocator).
inline bool thread_is_observed() { return observer_state::t_observer != nullptr; }

// [begin, begin + size) is memory `owner` serves requests from: a free of a pointer
// in it that reaches the allocator from any thread goes to owner->on_free first.
void register_served_range(const void* begin, size_t size, AllocationObserver* owner);
void unregister_served_range(const void* begin);
inline bool any_served_ranges() {
  return observer_state::g_served_ranges.load(std::memory_order_acquire) != 0;
}
// Passes a free to the owner of the registered range holding ptr; false if none does.
bool free_in_served_range(void* ptr);

}  // namespace ember::memory
