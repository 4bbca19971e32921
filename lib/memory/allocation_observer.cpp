// Allocation observers (lib/memory/allocation_observer.h).
#include "memory/allocation_observer.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <vector>

namespace ember::memory {

namespace observer_state {
constinit thread_local AllocationObserver* t_observer = nullptr;
constinit thread_local const CachingAllocator* t_observed_allocator = nullptr;
std::atomic<int> g_served_ranges{0};
}  // namespace observer_state

ScopedAllocationObserver::ScopedAllocationObserver(const CachingAllocator& allocator,
                                                   AllocationObserver* observer)
    : previous_(observer_state::t_observer), previous_allocator_(observer_state::t_observed_allocator) {
  observer_state::t_observer = observer;
  observer_state::t_observed_allocator = &allocator;
}

ScopedAllocationObserver::~ScopedAllocationObserver() {
  observer_state::t_observer = previous_;
  observer_state::t_observed_allocator = previous_allocator_;
}

namespace {

struct ServedRange {
  uintptr_t begin;
  uintptr_t end;
  AllocationObserver* owner;
};

// Few ranges are registered at once (one per run in flight): a vector is enough.
std::mutex& ranges_mutex() {
  static auto* m = new std::mutex();  // leaked: frees may come during static destruction
  return *m;
}
std::vector<ServedRange>& ranges() {
  static auto* r = new std::vector<ServedRange>();
  return *r;
}

}  // namespace

void register_served_range(const void* begin, size_t size, AllocationObserver* owner) {
  const auto b = reinterpret_cast<uintptr_t>(begin);
  std::lock_guard<std::mutex> lock(ranges_mutex());
  ranges().push_back({b, b + size, owner});
  observer_state::g_served_ranges.fetch_add(1, std::memory_order_release);
}

void unregister_served_range(const void* begin) {
  const auto b = reinterpret_cast<uintptr_t>(begin);
  std::lock_guard<std::mutex> lock(ranges_mutex());
  auto& r = ranges();
  auto it = std::find_if(r.begin(), r.end(), [&](const ServedRange& s) { return s.begin == b; });
  if (it == r.end()) return;
  r.erase(it);
  observer_state::g_served_ranges.fetch_sub(1, std::memory_order_release);
}

bool free_in_served_range(void* ptr) {
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  AllocationObserver* owner = nullptr;
  {
    std::lock_guard<std::mutex> lock(ranges_mutex());
    for (const ServedRange& s : ranges())
      if (p >= s.begin && p < s.end) {
        owner = s.owner;
        break;
      }
  }
  // The owner outlives this call: it unregisters its range only once every block it
  // served is freed, and this block is not freed yet.
  return owner && owner->on_free(ptr);
}

}  // namespace ember::memory
