#include <catch2/catch.hpp>

#include <map>
#include <thread>

#include "ember/ember.h"
#include "ember/profiler.h"

using namespace ember;
namespace prof = ember::profiler;

namespace {
std::map<std::string, int> counts(const std::vector<prof::Event>& events) {
  std::map<std::string, int> n;
  for (const auto& e : events) ++n[e.name];
  return n;
}
}  // namespace

TEST_CASE("the profiler records each dispatched op with its nesting and times") {
  Tensor a = ones({2, 3}), b = ones({2, 3});
  std::vector<prof::Event> events;
  {
    prof::ProfilerGuard guard({/*record_shapes=*/true, /*profile_memory=*/false});
    prof::RecordFunction outer("outer");
    for (int i = 0; i < 3; ++i) add(a, b);
    mul(a, b);
    outer.end();
    events = guard.stop();
  }
  auto n = counts(events);
  CHECK(n["outer"] == 1);
  CHECK(n["add"] == 3);
  CHECK(n["mul"] == 1);
  uint64_t outer_id = 0;
  for (const auto& e : events)
    if (e.name == "outer") {
      outer_id = e.id;
      CHECK(e.kind == prof::EventKind::UserRange);
      CHECK(e.depth == 0);
    }
  for (const auto& e : events) {
    CHECK(e.start_ns <= e.end_ns);
    if (e.name == "add") {
      CHECK(e.parent_id == outer_id);
      CHECK(e.depth == 1);
      CHECK(e.device == "cpu");
      REQUIRE(e.input_shapes.size() == 2);
      CHECK(e.input_shapes[0] == std::vector<int64_t>{2, 3});
    }
  }
  // Off: nothing is recorded and a new run starts empty.
  add(a, b);
  CHECK_FALSE(prof::is_enabled());
  prof::start();
  CHECK(prof::stop().empty());
}

TEST_CASE("the profiler records backward nodes, threads, and refuses a second start") {
  Tensor x = ones({3}).requires_grad_(true);
  prof::start();
  CHECK_THROWS_AS(prof::start(), Error);
  Tensor y = mul(x, x).sum();
  y.backward();
  std::thread other([] { add(ones({2}), ones({2})); });
  other.join();
  auto events = prof::stop();
  bool saw_node = false, saw_other_thread = false;
  int64_t main_tid = 0;
  for (const auto& e : events)
    if (e.name == "mul" && e.depth == 0) main_tid = e.thread_id;
  for (const auto& e : events) {
    if (e.kind == prof::EventKind::BackwardNode && e.name.rfind("MulBackward", 0) == 0) saw_node = true;
    if (e.name == "add" && e.thread_id != main_tid) saw_other_thread = true;
  }
  CHECK(saw_node);
  CHECK(saw_other_thread);
}
