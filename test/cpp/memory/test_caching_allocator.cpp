// CachingAllocator policy, over a fake device whose capacity and stream events the
// tests control; and the process-wide CPU allocator.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ember/cuda.h"
#include "ember/ember.h"
#include "ember/error.h"
#include "ember/memory.h"
#include "memory/caching_allocator.h"
#include "fake_device.h"

using ember::memory::CachingAllocator;
using ember::memory::EventId;
using ember::memory::RawAllocator;
using ember::memory::StreamId;
using namespace ember::memory::testing;

namespace {

char* as_bytes(void* p) { return static_cast<char*>(p); }

}  // namespace

TEST_CASE("sizes are rounded up to 512 bytes", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  void* p1 = a->allocate(1);
  CHECK(a->stats().allocated_bytes == 512);
  void* p2 = a->allocate(513);
  CHECK(a->stats().allocated_bytes == 512 + 1024);
  void* p3 = a->allocate(1024);
  CHECK(a->stats().allocated_bytes == 512 + 1024 + 1024);
  CHECK(as_bytes(p2) - as_bytes(p1) == 512);  // carved one after another
  CHECK(as_bytes(p3) - as_bytes(p2) == 1024);
  for (void* p : {p1, p2, p3}) a->free(p);
  CHECK(a->stats().allocated_bytes == 0);
}

TEST_CASE("allocate(0) gives distinct valid pointers; free(nullptr) is a no-op", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  void* p = a->allocate(0);
  void* q = a->allocate(0);
  REQUIRE(p != nullptr);
  REQUIRE(q != nullptr);
  CHECK(p != q);
  CHECK(a->stats().allocated_bytes == 1024);
  a->free(nullptr);
  a->free(p);
  a->free(q);
  CHECK(a->stats().num_frees == 2);
}

TEST_CASE("a steady alloc/free loop reuses its block", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  for (size_t size : {3000 * size_t(1), 5 * MiB}) {
    int raw_before = dev.raw_allocs;
    for (int i = 0; i < 100; ++i) a->free(a->allocate(size));
    CHECK(dev.raw_allocs == raw_before + 1);
  }
  auto s = a->stats();
  CHECK(s.num_allocs == 200);
  CHECK(s.num_cache_hits == 198);
  CHECK(s.num_raw_allocs == 2);
}

TEST_CASE("small and large requests come from separate pools", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  void* small = a->allocate(1 * MiB);  // the largest small request
  REQUIRE(dev.alloc_sizes.size() == 1);
  CHECK(dev.alloc_sizes[0] == CachingAllocator::kSmallSegment);

  void* large = a->allocate(1 * MiB + 1);  // rounded to the next 2 MiB
  REQUIRE(dev.alloc_sizes.size() == 2);
  CHECK(dev.alloc_sizes[1] == 2 * MiB);

  void* huge = a->allocate(11 * MiB);
  REQUIRE(dev.alloc_sizes.size() == 3);
  CHECK(dev.alloc_sizes[2] == 12 * MiB);

  // A free small segment does not serve a large request, nor a large one a small one.
  a->free(small);
  a->free(large);
  void* large2 = a->allocate(1536 * KiB);
  CHECK(dev.raw_allocs == 3);  // the freed large segment fits it
  CHECK(large2 == large);
  void* small2 = a->allocate(4 * KiB);
  CHECK(small2 == small);
  a->free(huge);
  // The small segment has 2 MiB - 4 KiB left: one 1 MiB block, not two, even though
  // 12 MiB of large blocks are free.
  void* small3 = a->allocate(1 * MiB);
  CHECK(dev.raw_allocs == 3);
  void* small4 = a->allocate(1 * MiB);
  CHECK(dev.raw_allocs == 4);
  CHECK(dev.alloc_sizes.back() == CachingAllocator::kSmallSegment);
  for (void* p : {large2, small2, small3, small4}) a->free(p);
}

TEST_CASE("small blocks split a segment and merge back when freed", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  bool free_first_block_first = GENERATE(true, false);
  void* p = a->allocate(1000);
  void* q = a->allocate(1000);
  CHECK(dev.raw_allocs == 1);
  CHECK(as_bytes(q) == as_bytes(p) + 1024);
  if (free_first_block_first) {
    a->free(p);
    a->free(q);
  } else {
    a->free(q);
    a->free(p);
  }
  // Only a fully merged segment holds two 1 MiB blocks.
  void* r = a->allocate(1 * MiB);
  void* s = a->allocate(1 * MiB);
  CHECK(dev.raw_allocs == 1);
  CHECK(r == p);
  CHECK(as_bytes(s) == as_bytes(p) + 1 * MiB);
  a->free(r);
  a->free(s);
  a->empty_cache();  // an unsplit segment again, so it can be returned
  CHECK(dev.raw_frees == 1);
  CHECK(a->stats().reserved_bytes == 0);
}

TEST_CASE("large blocks split and merge back into the whole segment", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  void* seg = a->allocate(6 * MiB);
  a->free(seg);
  void* p = a->allocate(2 * MiB);
  void* q = a->allocate(2 * MiB);
  CHECK(dev.raw_allocs == 1);
  CHECK(p == seg);
  CHECK(as_bytes(q) == as_bytes(p) + 2 * MiB);
  a->free(q);
  a->free(p);
  void* whole = a->allocate(6 * MiB);
  CHECK(dev.raw_allocs == 1);
  CHECK(whole == seg);
  a->free(whole);
}

TEST_CASE("a large block is not split off a remainder of 1 MiB or less", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  void* p = a->allocate(3 * MiB);  // 4 MiB segment, 1 MiB left: not split
  CHECK(a->stats().allocated_bytes == static_cast<int64_t>(4 * MiB));
  void* q = a->allocate(1 * MiB + 512);
  CHECK(dev.raw_allocs == 2);
  a->free(p);
  a->free(q);
}

TEST_CASE("best fit picks the smallest free block that is large enough", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  SECTION("large pool") {
    void* b4 = a->allocate(4 * MiB);
    void* b8 = a->allocate(8 * MiB);
    void* b6 = a->allocate(6 * MiB);
    for (void* p : {b4, b8, b6}) a->free(p);
    void* p = a->allocate(5 * MiB + 512 * KiB);
    CHECK(p == b6);
    CHECK(dev.raw_allocs == 3);
    a->free(p);
  }
  SECTION("small pool") {
    // Allocated separators keep the freed blocks from merging.
    void* b4k = a->allocate(4 * KiB);
    void* sep1 = a->allocate(512);
    void* b2k = a->allocate(2 * KiB);
    void* sep2 = a->allocate(512);
    void* b8k = a->allocate(8 * KiB);
    void* sep3 = a->allocate(512);
    for (void* p : {b4k, b2k, b8k}) a->free(p);
    CHECK(a->allocate(2000) == b2k);
    CHECK(a->allocate(3000) == b4k);
    CHECK(a->allocate(5000) == b8k);
    CHECK(dev.raw_allocs == 1);
    for (void* p : {b4k, b2k, b8k, sep1, sep2, sep3}) a->free(p);
  }
}

TEST_CASE("blocks are reused only on their own stream", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  void* p = a->allocate(4 * KiB, /*stream=*/1);
  a->free(p);
  void* q = a->allocate(4 * KiB, /*stream=*/2);
  CHECK(dev.raw_allocs == 2);
  void* r = a->allocate(4 * KiB, /*stream=*/1);
  CHECK(r == p);
  a->free(r);
  // Nor does a block of a higher-numbered stream serve a lower one.
  void* t = a->allocate(4 * KiB, /*stream=*/0);
  CHECK(dev.raw_allocs == 3);
  a->free(q);
  a->free(t);
}

TEST_CASE("a block used on another stream waits for that stream's event", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  void* p = a->allocate(4 * KiB, /*stream=*/1);
  a->record_stream(p, 2);
  a->record_stream(p, 2);  // recorded once
  a->record_stream(p, 1);  // its own stream: nothing to wait for
  a->free(p);
  REQUIRE(dev.events.size() == 1);
  CHECK(dev.event_streams.begin()->second == 2);
  CHECK(a->stats().allocated_bytes == 0);  // freed by the user; only its reuse waits

  void* q = a->allocate(4 * KiB, 1);
  CHECK(q != p);

  dev.complete_events();
  void* r = a->allocate(4 * KiB, 1);
  CHECK(r == p);
  CHECK(dev.released_events == 0);  // the completed event is kept for the next free
  CHECK(dev.events.size() == 1);
  CHECK(dev.raw_allocs == 1);
  a->free(q);
  a->free(r);
  a->empty_cache();
  CHECK(dev.raw_frees == 1);
}

TEST_CASE("a block used on several streams waits for all of them", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  void* p = a->allocate(4 * KiB, 1);
  a->record_stream(p, 2);
  a->record_stream(p, 3);
  a->free(p);
  CHECK(dev.events.size() == 2);
  dev.complete_events_on(2);
  void* q = a->allocate(4 * KiB, 1);
  CHECK(q != p);
  dev.complete_events_on(3);
  void* r = a->allocate(4 * KiB, 1);
  CHECK(r == p);
  CHECK(dev.events.size() == 2);  // both kept for reuse, none destroyed
  CHECK(dev.released_events == 0);
  a->free(q);
  a->free(r);
}

TEST_CASE("a pending block does not merge until its events complete", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  void* p = a->allocate(1 * MiB);
  void* q = a->allocate(1 * MiB);
  a->record_stream(p, 7);
  a->free(p);
  a->free(q);
  auto block_states = [&] {
    std::vector<std::string> states;
    for (const auto& seg : a->snapshot())
      for (const auto& b : seg.blocks) states.push_back(b.state);
    return states;
  };
  // q stays apart from the pending p (merging would hand p's half out too early).
  CHECK(block_states() == std::vector<std::string>{"active_pending_free", "inactive"});
  dev.complete_events();
  a->free(a->allocate(100, /*stream=*/3));  // any request processes completed events
  std::vector<std::string> merged;
  for (const auto& seg : a->snapshot())
    if (seg.stream == 0) merged.push_back(seg.blocks.size() == 1 ? seg.blocks[0].state : "split");
  CHECK(merged == std::vector<std::string>{"inactive"});  // one whole free segment again
  a->empty_cache();
  CHECK(a->stats().reserved_bytes == 0);
}

TEST_CASE("when the device is full, the cache is released and the request retried", "[memory]") {
  FakeDevice dev;
  dev.capacity = 8 * MiB;
  auto a = make_allocator(dev);
  void* p = a->allocate(3 * MiB);  // 4 MiB segments
  void* q = a->allocate(3 * MiB);
  a->free(p);
  a->free(q);
  CHECK(a->stats().reserved_bytes == static_cast<int64_t>(8 * MiB));
  void* big = a->allocate(6 * MiB);
  REQUIRE(big != nullptr);
  auto s = a->stats();
  CHECK(dev.raw_frees == 2);
  CHECK(s.num_raw_frees == 2);
  CHECK(s.num_ooms == 0);
  CHECK(s.reserved_bytes == static_cast<int64_t>(6 * MiB));
  a->free(big);
}

TEST_CASE("a pending block is reused once its events complete", "[memory]") {
  FakeDevice dev;
  dev.capacity = 4 * MiB;
  auto a = make_allocator(dev);
  void* p = a->allocate(3 * MiB);
  a->record_stream(p, 5);
  a->free(p);
  dev.complete_events();
  void* q = a->allocate(3 * MiB);
  CHECK(q == p);
  CHECK(dev.raw_allocs == 1);
  a->free(q);
}

TEST_CASE("a full device raises OutOfMemoryError with the numbers", "[memory]") {
  FakeDevice dev;
  dev.capacity = 8 * MiB;
  auto a = make_allocator(dev);
  void* p = a->allocate(6 * MiB);
  void* cached = a->allocate(1 * KiB);
  a->free(cached);  // a cached small segment, released before giving up
  std::string message;
  try {
    a->allocate(4 * MiB);
    FAIL("expected OutOfMemoryError");
  } catch (const ember::OutOfMemoryError& e) {
    message = e.what();
  }
  CHECK_THAT(message, Catch::Contains("FAKE out of memory"));
  CHECK_THAT(message, Catch::Contains("tried to allocate 4.00 MiB"));
  CHECK_THAT(message, Catch::Contains("6.00 MiB allocated"));
  CHECK_THAT(message, Catch::Contains("6.00 MiB reserved"));
  CHECK_THAT(message, Catch::Contains("(device fake:0)"));
  CHECK(a->stats().num_ooms == 1);
  CHECK(dev.raw_frees == 1);
  // An OutOfMemoryError is an ember::Error, and the allocator still works after it.
  CHECK_THROWS_AS(a->allocate(SIZE_MAX), ember::Error);
  CHECK(a->stats().num_ooms == 2);
  void* small = a->allocate(100);
  CHECK(small != nullptr);
  a->free(small);
  a->free(p);
}

TEST_CASE("statistics track allocated, reserved and peaks", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  void* p = a->allocate(1000);     // 1 KiB of a 2 MiB segment
  void* q = a->allocate(5 * MiB);  // a 6 MiB segment, whole
  auto s = a->stats();
  CHECK(s.allocated_bytes == static_cast<int64_t>(1 * KiB + 6 * MiB));
  CHECK(s.reserved_bytes == static_cast<int64_t>(8 * MiB));
  CHECK(s.peak_allocated_bytes == s.allocated_bytes);
  CHECK(s.num_allocs == 2);
  CHECK(s.num_raw_allocs == 2);
  CHECK(s.num_cache_hits == 0);

  a->free(q);
  s = a->stats();
  CHECK(s.allocated_bytes == static_cast<int64_t>(1 * KiB));
  CHECK(s.peak_allocated_bytes == static_cast<int64_t>(1 * KiB + 6 * MiB));
  CHECK(s.reserved_bytes == static_cast<int64_t>(8 * MiB));
  CHECK(s.num_frees == 1);

  a->reset_peak_stats();
  s = a->stats();
  CHECK(s.peak_allocated_bytes == static_cast<int64_t>(1 * KiB));
  CHECK(s.peak_reserved_bytes == static_cast<int64_t>(8 * MiB));

  void* r = a->allocate(5 * MiB);
  CHECK(r == q);
  s = a->stats();
  CHECK(s.num_cache_hits == 1);
  CHECK(s.num_raw_allocs == 2);

  std::string summary = a->summary();
  CHECK_THAT(summary, Catch::Contains("fake:0"));
  CHECK_THAT(summary, Catch::Contains("reserved: 8.00 MiB"));
  a->free(p);
  a->free(r);
}

TEST_CASE("empty_cache returns unused segments to the device", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  void* kept = a->allocate(3 * MiB);
  void* p = a->allocate(5 * MiB);
  void* q = a->allocate(100);
  a->free(p);
  a->free(q);
  a->empty_cache();
  auto s = a->stats();
  CHECK(dev.raw_frees == 2);
  CHECK(s.num_raw_frees == 2);
  CHECK(s.reserved_bytes == static_cast<int64_t>(4 * MiB));
  CHECK(dev.in_use == 4 * MiB);
  a->free(kept);
}

TEST_CASE("the allocator returns every segment when destroyed", "[memory]") {
  FakeDevice dev;
  {
    auto a = make_allocator(dev);
    void* p = a->allocate(100);
    a->allocate(200);  // still held when the allocator dies
    a->allocate(30 * MiB);
    a->record_stream(p, 3);
    a->free(p);
  }
  CHECK(dev.in_use == 0);
  CHECK(dev.live.empty());
  CHECK(dev.events.empty());
}

TEST_CASE("freeing a pointer the allocator does not own throws", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  int local = 0;
  CHECK_THROWS_AS(a->free(&local), ember::Error);
  void* p = a->allocate(64);
  CHECK_THROWS_AS(a->free(as_bytes(p) + 8), ember::Error);
  CHECK_THROWS_AS(a->record_stream(&local, 1), ember::Error);
  a->free(p);
  CHECK_THROWS_WITH(a->free(p), Catch::Contains("was not allocated"));
  CHECK(a->stats().num_frees == 1);
}

TEST_CASE("owns() tells the blocks in use apart from everything else", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev);
  int local = 0;
  void* p = a->allocate(64);
  CHECK(a->owns(p));
  CHECK_FALSE(a->owns(as_bytes(p) + 8));
  CHECK_FALSE(a->owns(&local));
  a->free(p);
  CHECK_FALSE(a->owns(p));
}

TEST_CASE("host blocks (kHostStream) wait for every stream that used them", "[memory]") {
  // The pinned-memory allocator's shape: blocks belong to no stream, so a use on
  // the default stream (0) also waits for its event before reuse.
  using ember::memory::kHostStream;
  FakeDevice dev;
  auto a = make_allocator(dev);
  void* p = a->allocate(4 * KiB, kHostStream);
  a->record_stream(p, 0);
  a->free(p);
  CHECK(a->allocate(4 * KiB, kHostStream) != p);
  dev.complete_events();
  CHECK(a->allocate(4 * KiB, kHostStream) == p);
}

TEST_CASE("concurrent alloc/free keeps the statistics consistent", "[memory]") {
  FakeDevice dev;
  dev.capacity = SIZE_MAX / 2;
  auto a = make_allocator(dev);
  constexpr int kThreads = 4, kIters = 10000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&a, t] {
      std::vector<void*> held;
      for (int i = 0; i < kIters; ++i) {
        size_t size = (i % 7 == 0) ? (1 + i % 3) * MiB + 1 : 64 * (1 + (i * 31 + t) % 100);
        void* p = a->allocate(size);
        static_cast<char*>(p)[0] = static_cast<char>(i);  // the memory is really ours
        held.push_back(p);
        if (held.size() > 8) {
          a->free(held.front());
          held.erase(held.begin());
        }
      }
      for (void* p : held) a->free(p);
    });
  }
  for (auto& th : threads) th.join();
  auto s = a->stats();
  CHECK(s.allocated_bytes == 0);
  CHECK(s.num_allocs == kThreads * kIters);
  CHECK(s.num_frees == kThreads * kIters);
  CHECK(s.num_cache_hits + s.num_raw_allocs == s.num_allocs);
  CHECK(s.reserved_bytes == static_cast<int64_t>(dev.in_use));
  a->empty_cache();
  CHECK(a->stats().reserved_bytes == 0);
  CHECK(dev.in_use == 0);
}

TEST_CASE("the CPU allocator gives 64-byte aligned memory", "[memory]") {
  auto& cpu = ember::memory::cpu_allocator();
  CHECK(&cpu == &ember::memory::cpu_allocator());
  auto before = ember::memory_stats();
  std::vector<void*> ptrs;
  for (size_t n : {size_t(0), size_t(1), size_t(63), size_t(1000), 3 * MiB + 7}) {
    void* p = cpu.allocate(n);
    CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);
    static_cast<char*>(p)[n ? n - 1 : 0] = 1;
    ptrs.push_back(p);
  }
  CHECK(ember::memory_stats().num_allocs == before.num_allocs + 5);
  for (void* p : ptrs) cpu.free(p);
  ember::empty_cache();
  ember::reset_peak_memory_stats();
  auto after = ember::memory_stats(ember::kCPU);
  CHECK(after.allocated_bytes == before.allocated_bytes);
  CHECK(after.peak_allocated_bytes == after.allocated_bytes);
  if (!ember::cuda::is_available()) {  // test/cpp/cuda covers the CUDA allocators
    ember::Device cuda(ember::DeviceType::CUDA, 0);
    CHECK_THROWS_AS(ember::memory_stats(cuda), ember::Error);
    CHECK_THROWS_AS(ember::empty_cache(cuda), ember::Error);
    CHECK_THROWS_AS(ember::reset_peak_memory_stats(cuda), ember::Error);
  }
}

TEST_CASE("quick lists hand a freed small block to the next request of its size", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev, /*quick_lists=*/true);
  void* p = a->allocate(3000);  // 3072 bytes
  void* q = a->allocate(3000);
  a->free(p);
  CHECK(a->allocate(2600) == p);  // same rounded size: the quick block
  void* r = a->allocate(1000);    // another size: carved from the segment, not p's block
  CHECK(r != p);
  CHECK(a->owns(p));
  CHECK_FALSE(a->owns(as_bytes(p) + 512));
  auto s = a->stats();
  CHECK(s.allocated_bytes == 3072 + 3072 + 1024);
  CHECK(s.num_cache_hits >= 1);
  a->free(p);
  a->free(q);
  a->free(r);
  CHECK(a->stats().allocated_bytes == 0);
  CHECK_THAT(a->summary(), Catch::Contains("quick lists: 7.00 KiB"));
  // empty_cache moves the quick blocks back to the pool, merged, and returns the segment.
  a->empty_cache();
  CHECK(a->stats().reserved_bytes == 0);
  CHECK(dev.in_use == 0);
  CHECK_THAT(a->summary(), Catch::Contains("quick lists: 0 B"));
}

TEST_CASE("quick lists are bounded per size and leave large blocks to the pools", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev, /*quick_lists=*/true);
  std::vector<void*> blocks;
  for (int i = 0; i < 40; ++i) blocks.push_back(a->allocate(512));
  for (void* b : blocks) a->free(b);
  // 16 stay in the quick list; the rest merged back: one request of 24 * 512 bytes fits
  // in the merged space without a new segment.
  int raw_before = dev.raw_allocs;
  void* big = a->allocate(24 * 512);
  CHECK(dev.raw_allocs == raw_before);
  void* large = a->allocate(2 * MiB);
  a->free(large);
  CHECK(a->allocate(2 * MiB) == large);  // best fit in the large pool, as without quick lists
  a->free(big);
  a->empty_cache();
}

TEST_CASE("a block used on another stream skips the quick lists", "[memory]") {
  FakeDevice dev;
  auto a = make_allocator(dev, /*quick_lists=*/true);
  void* p = a->allocate(1024);
  a->record_stream(p, 7);
  a->free(p);
  CHECK(a->allocate(1024) != p);  // waits for stream 7's event, not in a quick list
  for (auto& [event, done] : dev.events) done = true;
}

TEST_CASE("the CPU allocator's quick lists keep tensors' memory correct", "[memory]") {
  // A loop of small tensors of a few sizes, each filled and read back: a block handed
  // out twice at once would show as a wrong value.
  using ember::Tensor;
  std::vector<Tensor> live;
  for (int step = 0; step < 200; ++step) {
    int64_t n = 1 + (step * 37) % 300;
    Tensor t = ember::full({n}, double(step));
    live.push_back(t);
    if (live.size() > 20) live.erase(live.begin());
    bool intact = true;
    for (const Tensor& u : live) {
      const float* v = static_cast<const float*>(u.data_ptr());
      for (int64_t i = 0; i < u.numel(); ++i) intact = intact && v[i] == v[0];
    }
    REQUIRE(intact);
  }
  for (size_t i = 0; i + 1 < live.size(); ++i)
    CHECK(static_cast<const float*>(live[i].data_ptr())[0] + 1 ==
          static_cast<const float*>(live[i + 1].data_ptr())[0]);
}
