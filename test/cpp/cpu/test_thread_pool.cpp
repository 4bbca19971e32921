// The CPU thread pool (lib/cpu/thread_pool.h) and parallel_for on top of it: every task
// runs exactly once, exceptions reach the caller, regions do not nest, several threads
// may start regions at once, and the pool survives fork().
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cpu/parallel.h"
#include "cpu/thread_pool.h"
#include "ember/ember.h"

using namespace ember;

namespace {

// Restores the thread count a test changes.
struct ThreadCount {
  int saved = get_num_threads();
  explicit ThreadCount(int n) { set_num_threads(n); }
  ~ThreadCount() { set_num_threads(saved); }
};

// Runs parallel_for over n elements and checks that each was visited exactly once.
bool covers_once(int64_t n, int64_t grain) {
  std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
  for (auto& h : hits) h.store(0);
  cpu::parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)].fetch_add(1);
  });
  for (auto& h : hits)
    if (h.load() != 1) return false;
  return true;
}

}  // namespace

TEST_CASE("thread pool: parallel_for visits every element once", "[thread_pool]") {
  ThreadCount threads(2);
  for (int64_t n : {1, 2, 7, 100, 4096, 100003}) {
    CHECK(covers_once(n, 1));
    CHECK(covers_once(n, 1000));
  }
  int calls = 0;
  cpu::parallel_for(5, 5, 1, [&](int64_t, int64_t) { ++calls; });
  CHECK(calls == 0);
}

TEST_CASE("thread pool: run_parallel's slots stay below the thread count", "[thread_pool]") {
  ThreadCount threads(2);
  std::vector<std::atomic<int>> by_slot(4);
  for (auto& s : by_slot) s.store(0);
  std::atomic<int64_t> sum{0};
  cpu::run_parallel(1000, 2, [&](int64_t i, int slot) {
    REQUIRE(slot >= 0);
    REQUIRE(slot < 2);
    by_slot[static_cast<size_t>(slot)].fetch_add(1);
    sum.fetch_add(i);
  });
  CHECK(sum.load() == 999 * 1000 / 2);
  CHECK(by_slot[0].load() + by_slot[1].load() == 1000);
  CHECK(by_slot[0].load() > 0);  // the caller always takes part
}

TEST_CASE("thread pool: an exception in a task reaches the caller", "[thread_pool]") {
  ThreadCount threads(2);
  std::atomic<int> ran{0};
  CHECK_THROWS_WITH(cpu::run_parallel(64, 2,
                                      [&](int64_t i, int) {
                                        ran.fetch_add(1);
                                        if (i == 3) throw std::runtime_error("task 3 failed");
                                      }),
                    "task 3 failed");
  CHECK(ran.load() >= 1);
  // The pool still works afterwards.
  CHECK(covers_once(100000, 100));
}

TEST_CASE("thread pool: regions do not nest", "[thread_pool]") {
  ThreadCount threads(2);
  std::atomic<int> inner_threads_seen{0};
  cpu::run_parallel(8, 2, [&](int64_t, int) {
    CHECK(cpu::in_parallel_region());
    CHECK(cpu::max_threads() == 1);
    inner_threads_seen.fetch_add(cpu::threads_for(1 << 20, 1));
    CHECK(covers_once(1000, 1));  // runs on this thread alone
  });
  CHECK(inner_threads_seen.load() == 8);
  CHECK_FALSE(cpu::in_parallel_region());
}

TEST_CASE("thread pool: several threads may start regions at once", "[thread_pool]") {
  ThreadCount threads(2);
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&] {
      for (int r = 0; r < 200; ++r)
        if (!covers_once(5000, 100)) failures.fetch_add(1);
    });
  for (auto& t : callers) t.join();
  CHECK(failures.load() == 0);
}

TEST_CASE("thread pool: one thread means no workers", "[thread_pool]") {
  ThreadCount threads(1);
  CHECK(get_num_threads() == 1);
  std::thread::id caller = std::this_thread::get_id();
  bool elsewhere = false;
  cpu::parallel_for(0, 1 << 20, 1, [&](int64_t, int64_t) { elsewhere |= std::this_thread::get_id() != caller; });
  CHECK_FALSE(elsewhere);
}

TEST_CASE("thread pool: a forked child can run regions", "[thread_pool]") {
  ThreadCount threads(2);
  REQUIRE(covers_once(100000, 100));  // the parent's workers exist now
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    bool ok = covers_once(100000, 100) && covers_once(100000, 100);
    Tensor x = arange(100000, kFloat64);
    ok = ok && (x * 2).sum().item<double>() == 100000.0 * 99999.0;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
