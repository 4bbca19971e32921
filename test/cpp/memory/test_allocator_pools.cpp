// The caching allocator's private pools (CUDA graph capture), its reservation cap,
// its snapshot and the reset of its accumulated counters, on the fake device.
#include <catch2/catch.hpp>
#include <algorithm>
#include <string>
#include <vector>

#include "ember/error.h"
#include "ember/memory.h"
#include "fake_device.h"
#include "memory/caching_allocator.h"

using ember::memory::CachingAllocator;
using ember::memory::StreamId;
using namespace ember::memory::testing;

namespace {

constexpr StreamId kCapture = 7;  // a side stream that captures
constexpr StreamId kOther = 9;

}  // namespace

TEST_CASE("requests on a capturing stream come from the capture's private pool", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  // A free block of the shared pool on the capturing stream must not be handed out.
  void* shared = a->allocate(4 * KiB, kCapture);
  a->free(shared);
  a->retain_pool(1);
  a->begin_capture(kCapture, 1);
  CHECK(a->capture_underway());
  int raw_before = dev.raw_allocs;
  void* p = a->allocate(4 * KiB, kCapture);
  CHECK(p != shared);
  CHECK(dev.raw_allocs == raw_before + 1);  // a segment of its own
  // Another stream keeps using the shared pools.
  void* q = a->allocate(4 * KiB, kOther);
  CHECK(dev.raw_allocs == raw_before + 2);
  // Within the capture, a freed block serves the next request of the capture.
  a->free(p);
  void* p2 = a->allocate(4 * KiB, kCapture);
  CHECK(p2 == p);
  a->end_capture(kCapture);
  CHECK_FALSE(a->capture_underway());
  // After the capture, the pool's free blocks serve no one else, even on that stream.
  a->free(p2);
  void* r = a->allocate(4 * KiB, kCapture);
  CHECK(r != p2);
  CHECK(r == shared);
  auto pool_segments = [&] {
    int n = 0;
    for (const auto& seg : a->snapshot()) n += seg.pool_id == 1;
    return n;
  };
  CHECK(pool_segments() == 1);
  // empty_cache keeps the pool's memory while a graph owns it ...
  a->empty_cache();
  CHECK(pool_segments() == 1);
  // ... and releasing the pool gives it back.
  a->release_pool(1);
  CHECK(pool_segments() == 0);
  for (void* x : {q, r}) a->free(x);
  a->empty_cache();
  CHECK(dev.in_use == 0);
}

TEST_CASE("a block that outlives its graph returns to the device when freed", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  a->retain_pool(3);
  a->begin_capture(kCapture, 3);
  void* kept = a->allocate(2 * MiB, kCapture);  // a static output the user keeps
  void* temp = a->allocate(3 * MiB, kCapture);
  a->free(temp);
  a->end_capture(kCapture);
  int frees_before = dev.raw_frees;
  a->release_pool(3);
  CHECK(dev.raw_frees == frees_before + 1);  // temp's segment went back at once
  CHECK(a->stats().segments == 1);
  a->free(kept);
  CHECK(dev.raw_frees == frees_before + 2);  // and kept's with its last block
  CHECK(a->stats().segments == 0);
  CHECK(a->stats().reserved_bytes == 0);
  CHECK(dev.in_use == 0);
}

TEST_CASE("graphs sharing a pool keep it until the last one releases it", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  a->retain_pool(5);
  a->begin_capture(kCapture, 5);
  void* x = a->allocate(8 * KiB, kCapture);
  a->free(x);
  a->end_capture(kCapture);
  a->retain_pool(5);  // a second graph captures into the same pool
  a->begin_capture(kCapture, 5);
  void* y = a->allocate(8 * KiB, kCapture);
  CHECK(y == x);  // the first graph's freed memory serves the second capture
  a->free(y);
  a->end_capture(kCapture);
  a->release_pool(5);
  CHECK(a->stats().segments == 1);
  a->release_pool(5);
  CHECK(a->stats().segments == 0);
  CHECK_THROWS_AS(a->release_pool(5), ember::Error);  // no owner left
}

TEST_CASE("capture bookkeeping refuses what makes no sense", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  CHECK_THROWS_AS(a->begin_capture(kCapture, 4), ember::Error);  // pool not retained
  CHECK_THROWS_AS(a->retain_pool(0), ember::Error);             // 0 is the shared pool
  a->retain_pool(4);
  a->begin_capture(kCapture, 4);
  CHECK_THROWS_AS(a->begin_capture(kCapture, 4), ember::Error);  // already capturing
  CHECK_THROWS_AS(a->release_pool(4), ember::Error);            // its capture is underway
  CHECK_THROWS_AS(a->end_capture(kOther), ember::Error);         // not capturing
  a->end_capture(kCapture);
  a->release_pool(4);
}

TEST_CASE("during a capture no event is recorded or queried; frees wait for its end", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  void* used = a->allocate(4 * KiB, kOther);
  a->record_stream(used, 11);
  a->retain_pool(2);
  a->begin_capture(kCapture, 2);
  a->free(used);
  CHECK(dev.events.empty());  // deferred, not recorded
  auto states = [&] {
    std::vector<std::string> out;
    for (const auto& seg : a->snapshot())
      for (const auto& b : seg.blocks)
        if (b.address == reinterpret_cast<uintptr_t>(used)) out.push_back(b.state);
    return out;
  };
  CHECK(states() == std::vector<std::string>{"active_pending_free"});
  // Not reusable yet, and not given back by empty_cache (a no-op during capture).
  void* other = a->allocate(4 * KiB, kOther);
  CHECK(other != used);
  a->empty_cache();
  CHECK(dev.raw_frees == 0);
  a->end_capture(kCapture);
  REQUIRE(dev.events.size() == 1);  // recorded now, on the stream that used the block
  CHECK(dev.event_streams.begin()->second == 11);
  dev.complete_events();
  a->free(other);
  void* again = a->allocate(4 * KiB, kOther);
  CHECK((again == used || again == other));
  a->free(again);
  a->release_pool(2);
}

TEST_CASE("a full device during capture raises at once, without releasing the cache", "[memory]") {
  FakeDevice dev;
  dev.capacity = 8 * MiB;
  auto a = make_allocator(dev);
  a->free(a->allocate(6 * MiB, kOther));  // cached, 6 MiB reserved
  a->retain_pool(6);
  a->begin_capture(kCapture, 6);
  CHECK_THROWS_AS(a->allocate(4 * MiB, kCapture), ember::OutOfMemoryError);
  CHECK(dev.raw_frees == 0);  // the cached segment stayed
  try {
    a->allocate(4 * MiB, kCapture);
  } catch (const ember::OutOfMemoryError& e) {
    CHECK_THAT(e.what(), Catch::Contains("capture is underway"));
  }
  a->end_capture(kCapture);
  a->release_pool(6);
  // Outside the capture the cache is released and the request succeeds.
  a->free(a->allocate(4 * MiB, kCapture));
}

TEST_CASE("the reservation cap fails requests past it as out of memory", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  a->set_reserve_limit(6 * MiB);
  CHECK(a->reserve_limit() == 6 * MiB);
  void* p = a->allocate(4 * MiB);
  CHECK_THROWS_AS(a->allocate(4 * MiB), ember::OutOfMemoryError);
  try {
    a->allocate(4 * MiB);
  } catch (const ember::OutOfMemoryError& e) {
    CHECK_THAT(e.what(), Catch::Contains("set_per_process_memory_fraction"));
  }
  CHECK(a->stats().num_ooms == 2);
  // A cached segment counts against the cap until released: the retry releases it.
  a->free(p);
  a->free(a->allocate(2 * MiB, kOther));  // caches another 2 MiB
  void* q = a->allocate(6 * MiB);        // needs both cached segments released
  CHECK(a->stats().reserved_bytes == 6 * MiB);
  a->free(q);
  a->set_reserve_limit(0);
  void* big = a->allocate(20 * MiB);
  a->free(big);
}

TEST_CASE("snapshot lists every segment and block with its state", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  void* p = a->allocate(1000);
  void* q = a->allocate(3000);
  void* big = a->allocate(3 * MiB);
  a->free(q);
  auto segs = a->snapshot();
  REQUIRE(segs.size() == 2);
  CHECK(std::is_sorted(segs.begin(), segs.end(),
                       [](const auto& x, const auto& y) { return x.address < y.address; }));
  for (const auto& seg : segs) {
    int64_t total = 0, allocated = 0, requested = 0;
    for (const auto& b : seg.blocks) {
      total += b.size;
      if (b.state == "active_allocated") allocated += b.size;
      requested += b.requested_size;
    }
    CHECK(total == seg.total_size);
    CHECK(allocated == seg.allocated_size);
    CHECK(requested == seg.requested_size);
    if (seg.is_small) {
      CHECK(seg.total_size == 2 * MiB);
      CHECK(seg.allocated_size == 1024);
      CHECK(seg.requested_size == 1000);
      REQUIRE(seg.blocks.size() >= 2);
      CHECK(seg.blocks[0].address == reinterpret_cast<uintptr_t>(p));
      CHECK(seg.blocks[0].state == "active_allocated");
      CHECK(seg.blocks[1].state == "inactive");  // q merged with the rest
    } else {
      CHECK(seg.allocated_size == 4 * MiB);
      CHECK(seg.requested_size == 3 * MiB);
    }
  }
  a->free(p);
  a->free(big);
}

TEST_CASE("reset_accumulated_stats zeroes the counters, not the current amounts", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  void* p = a->allocate(5000);
  a->free(a->allocate(100));
  a->reset_accumulated_stats();
  auto s = a->stats();
  CHECK(s.num_allocs == 0);
  CHECK(s.num_frees == 0);
  CHECK(s.num_raw_allocs == 0);
  CHECK(s.num_cache_hits == 0);
  CHECK(s.active_allocs == 1);
  CHECK(s.segments == 1);
  CHECK(s.allocated_bytes == 5120);
  CHECK(s.peak_allocated_bytes == 5120 + 512);
  a->free(p);
  CHECK(a->stats().num_frees == 1);
  CHECK(a->stats().active_allocs == 0);
}

TEST_CASE("the CPU allocator's snapshot and accumulated reset through ember::", "[memory]") {
  auto before = ember::memory_stats();
  auto segs = ember::memory_snapshot();
  int64_t reserved = 0;
  for (const auto& seg : segs) reserved += seg.total_size;
  CHECK(reserved == before.reserved_bytes);
  ember::reset_accumulated_memory_stats();
  CHECK(ember::memory_stats().num_allocs == 0);
  CHECK(ember::memory_stats().active_allocs == before.active_allocs);
}
