// A fake device for the caching allocator's tests: its capacity and its stream events
// are the test's to control, and its state outlives the allocator that uses it.
#pragma once
#include <cstddef>
#include <cstdlib>
#include <map>
#include <memory>
#include <vector>

#include "memory/caching_allocator.h"

namespace ember::memory::testing {

constexpr size_t KiB = 1024;
constexpr size_t MiB = 1024 * KiB;

// The device's state lives outside the allocator, so a test can read it after the
// allocator (which owns the RawAllocator) is gone.
struct FakeDevice {
  size_t capacity = 64 * MiB;
  size_t in_use = 0;
  int raw_allocs = 0;
  int raw_frees = 0;
  std::vector<size_t> alloc_sizes;  // every raw request, in order
  std::map<void*, size_t> live;
  std::map<EventId, bool> events;  // event -> done
  std::map<EventId, StreamId> event_streams;
  EventId next_event = 1;
  int released_events = 0;
  int synchronized_events = 0;
  int rerecorded_events = 0;

  void complete_events() {
    for (auto& e : events) e.second = true;
  }
  void complete_events_on(StreamId s) {
    for (auto& e : events)
      if (event_streams.at(e.first) == s) e.second = true;
  }
};

class FakeRawAllocator final : public RawAllocator {
 public:
  explicit FakeRawAllocator(FakeDevice* dev) : dev_(dev) {}
  void* raw_alloc(size_t n) override {
    dev_->alloc_sizes.push_back(n);
    if (dev_->in_use + n > dev_->capacity) return nullptr;
    void* p = std::malloc(n);
    if (!p) return nullptr;
    dev_->in_use += n;
    dev_->live[p] = n;
    dev_->raw_allocs++;
    return p;
  }
  void raw_free(void* p) override {
    // Called under the allocator's lock, maybe from several threads: no Catch macros.
    auto it = dev_->live.find(p);
    if (it == dev_->live.end()) std::abort();  // not ours: an allocator bug
    dev_->in_use -= it->second;
    dev_->live.erase(it);
    dev_->raw_frees++;
    std::free(p);
  }
  EventId record_event(StreamId s) override {
    EventId e = dev_->next_event++;
    dev_->events[e] = false;
    dev_->event_streams[e] = s;
    return e;
  }
  bool event_done(EventId e) override { return dev_->events.at(e); }
  void synchronize_event(EventId e) override {
    dev_->events.at(e) = true;  // the host waited: the stream got there
    dev_->synchronized_events++;
  }
  bool rerecord_event(EventId e, StreamId s) override {
    if (!dev_->events.at(e)) std::abort();  // reusing an event still pending: an allocator bug
    dev_->events[e] = false;
    dev_->event_streams[e] = s;
    dev_->rerecorded_events++;
    return true;
  }
  void release_event(EventId e) override {
    if (dev_->events.erase(e) != 1) std::abort();  // released twice
    dev_->released_events++;
  }
  const char* device_name() const override { return "fake:0"; }

 private:
  FakeDevice* dev_;
};

inline std::unique_ptr<CachingAllocator> make_allocator(FakeDevice& dev, bool quick_lists = false) {
  return std::make_unique<CachingAllocator>(std::make_unique<FakeRawAllocator>(&dev), quick_lists);
}

}  // namespace ember::memory::testing
