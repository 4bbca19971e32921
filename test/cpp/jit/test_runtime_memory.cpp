// The deployment runtime's memory side (lib/jit/runtime/): arena packing, a run
// served from an arena (and what happens when a run leaves its plan), in-place
// reuse, and a traced module's planned runs against eager results.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <thread>

#include "ember/ember.h"
#include "jit/runtime/arena_run.h"
#include "jit/runtime/memory_plan.h"
#include "jit/runtime/plan_cache.h"
#include "jit/runtime/run_memory.h"
#include "jit/runtime/switches.h"
#include "memory/caching_allocator.h"

using namespace ember;
using jit::runtime::ArenaRun;
using jit::runtime::LoggedAllocation;
using jit::runtime::MemoryPlan;
using jit::runtime::plan_memory;

namespace {

bool same(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && (a - b).abs().max().item<double>() < 1e-5;
}

// Blocks alive at once (what outlives the run: until its end) never share a byte;
// offsets are aligned; the arena holds them.
void check_plan(const std::vector<LoggedAllocation>& log, const MemoryPlan& plan) {
  REQUIRE(plan.requests.size() == log.size());
  auto died = [&](size_t i) { return log[i].died >= 0 ? log[i].died : INT64_MAX; };
  for (size_t i = 0; i < log.size(); ++i) {
    const auto& r = plan.requests[i];
    REQUIRE(r.nbytes == log[i].nbytes);
    // Only large blocks that outlive the run are left to the allocator.
    const bool large_output = log[i].died < 0 && log[i].nbytes > memory::CachingAllocator::kSmallSize;
    REQUIRE((r.offset == MemoryPlan::kNotPlanned) == large_output);
    if (large_output) continue;
    REQUIRE(r.offset % MemoryPlan::kAlignment == 0);
    REQUIRE(r.offset + MemoryPlan::slot_bytes(log[i].nbytes) <= plan.arena_bytes);
    for (size_t j = 0; j < i; ++j) {
      const auto& q = plan.requests[j];
      if (q.offset == MemoryPlan::kNotPlanned) continue;
      bool in_time = log[i].born < died(j) && log[j].born < died(i);
      bool in_space = r.offset < q.offset + MemoryPlan::slot_bytes(log[j].nbytes) &&
                      q.offset < r.offset + MemoryPlan::slot_bytes(log[i].nbytes);
      REQUIRE_FALSE((in_time && in_space));
    }
  }
}

}  // namespace

TEST_CASE("memory plan: a chain reuses its blocks; what outlives the run is planned too",
          "[jit][runtime]") {
  // a = f(x); b = g(a); free a; c = h(b); free b; out = k(c); free c  (out escapes)
  std::vector<LoggedAllocation> log = {{1000, 0, 2}, {1000, 1, 4}, {1000, 3, 6}, {8, 5, -1}, {0, 6, 7},
                                       {2 << 20, 8, -1}};  // a large output: the allocator's
  MemoryPlan plan = plan_memory(log);
  check_plan(log, plan);
  // Two 1024-byte slots are enough for three blocks of which two live at once, and the
  // output and the zero-byte block fit in slots freed before them.
  REQUIRE(plan.arena_bytes == 2 * 1024);
  REQUIRE(plan.requests[0].offset == plan.requests[2].offset);
  REQUIRE(MemoryPlan::slot_bytes(0) == MemoryPlan::kAlignment);
  REQUIRE(plan.requests[5].offset == MemoryPlan::kNotPlanned);
}

TEST_CASE("memory plan: random lifetimes never overlap and pack near the live maximum",
          "[jit][runtime]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<LoggedAllocation> log;
    std::vector<size_t> live;
    int64_t clock = 0;
    for (int step = 0; step < 120; ++step) {
      if (!live.empty() && rng() % 2) {
        size_t k = rng() % live.size();
        log[live[k]].died = clock++;
        live.erase(live.begin() + static_cast<long>(k));
      } else {
        live.push_back(log.size());
        log.push_back({static_cast<size_t>(1 + rng() % 5000), clock++, -1});
      }
    }
    for (size_t k = 0; k + 1 < live.size(); ++k) log[live[k]].died = clock++;  // one outlives the run
    MemoryPlan plan = plan_memory(log);
    check_plan(log, plan);
    // The arena is at least the most bytes alive at once (a lower bound for any packing).
    size_t most = 0;
    for (int64_t t = 0; t < clock; ++t) {
      size_t alive = 0;
      for (const auto& a : log)
        if (a.born <= t && (a.died < 0 || t < a.died)) alive += MemoryPlan::slot_bytes(a.nbytes);
      most = std::max(most, alive);
    }
    REQUIRE(plan.arena_bytes >= most);
    REQUIRE(plan.arena_bytes <= plan.planned_bytes);
    REQUIRE(plan.arena_bytes <= most * 3 / 2);  // greedy packs well here
  }
}

TEST_CASE("arena run: serves the plan, falls back on a mismatch, never overlaps live blocks",
          "[jit][runtime]") {
  auto& allocator = memory::cpu_allocator();
  std::vector<LoggedAllocation> log = {{4096, 0, 1}, {4096, 2, 3}, {4096, 4, 5}};
  auto plan = std::make_shared<const MemoryPlan>(plan_memory(log));
  REQUIRE(plan->requests[0].offset == plan->requests[1].offset);
  const MemoryStats before = allocator.stats();

  SECTION("as planned: one allocator request (the arena), blocks at the planned offsets") {
    ArenaRun* run = ArenaRun::start(plan);
    REQUIRE(run);
    {
      memory::ScopedAllocationObserver observe(allocator, run);
      // Nothing else may allocate in between (a check's sum() would be a request too).
      for (int i = 0; i < 3; ++i) {
        Tensor t = empty({1024}, kFloat32);
        REQUIRE(run->contains(t.data_ptr()));
        t.fill_(static_cast<double>(i));
        const float* v = static_cast<const float*>(t.data_ptr());
        REQUIRE((v[0] == static_cast<float>(i) && v[1023] == static_cast<float>(i)));
      }
      REQUIRE(run->on_plan());
    }
    run->finish();
    REQUIRE(allocator.stats().allocated_bytes == before.allocated_bytes);
    REQUIRE(allocator.stats().num_allocs == before.num_allocs + 1);  // the arena
  }

  SECTION("a block kept alive longer than recorded is not overlapped") {
    ArenaRun* run = ArenaRun::start(plan);
    REQUIRE(run);
    memory::ScopedAllocationObserver* observe = new memory::ScopedAllocationObserver(allocator, run);
    Tensor first = empty({1024}, kFloat32).fill_(1.0);  // planned to die before the second
    Tensor second = empty({1024}, kFloat32).fill_(2.0);
    REQUIRE(run->contains(first.data_ptr()));
    REQUIRE_FALSE(run->contains(second.data_ptr()));
    REQUIRE_FALSE(run->on_plan());
    delete observe;
    run->finish();
    // `first` and `second` outlive the run: `first` is cut out of the arena as a block of
    // its own (4096 bytes), the rest of the arena went back.
    REQUIRE(allocator.stats().allocated_bytes == before.allocated_bytes + 2 * 4096);
    REQUIRE(first.sum().item<double>() == 1024.0);
    REQUIRE(second.sum().item<double>() == 2048.0);
    first = Tensor();
    second = Tensor();
    REQUIRE(allocator.stats().allocated_bytes == before.allocated_bytes);
  }

  SECTION("a block freed on another thread comes back to its arena") {
    ArenaRun* run = ArenaRun::start(plan);
    REQUIRE(run);
    {
      memory::ScopedAllocationObserver observe(allocator, run);
      Tensor t = empty({1024}, kFloat32);
      REQUIRE(run->contains(t.data_ptr()));
      std::thread([t = std::move(t)]() mutable { t = Tensor(); }).join();
      Tensor u = empty({1024}, kFloat32);  // the next planned block: no overlap, so served
      REQUIRE(run->contains(u.data_ptr()));
      REQUIRE(run->on_plan());
    }
    run->finish();
    REQUIRE(allocator.stats().allocated_bytes == before.allocated_bytes);
  }

  SECTION("another size ends the replay") {
    ArenaRun* run = ArenaRun::start(plan);
    {
      memory::ScopedAllocationObserver observe(allocator, run);
      Tensor t = empty({10}, kFloat32);
      REQUIRE_FALSE(run->contains(t.data_ptr()));
      Tensor u = empty({1024}, kFloat32);  // the planned size, but the run has left the plan
      REQUIRE_FALSE(run->contains(u.data_ptr()));
      REQUIRE_FALSE(run->on_plan());
    }
    run->finish();
    REQUIRE(allocator.stats().allocated_bytes == before.allocated_bytes);
  }
}

namespace {

// A traced MLP: linear -> relu -> linear -> relu -> linear (+ a residual), as a deployed model.
jit::Module traced_mlp(int64_t batch, std::vector<Tensor>* params_out = nullptr) {
  manual_seed(3);
  Tensor w1 = randn({64, 32}) * 0.2, b1 = randn({64}) * 0.1;
  Tensor w2 = randn({64, 64}) * 0.2, b2 = randn({64}) * 0.1;
  Tensor w3 = randn({10, 64}) * 0.2, b3 = randn({10});
  jit::NamedTensorList params = {{"w1", w1}, {"b1", b1}, {"w2", w2}, {"b2", b2}, {"w3", w3}, {"b3", b3}};
  if (params_out) *params_out = {w1, b1, w2, b2, w3, b3};
  auto fn = [=](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    Tensor h = relu(linear(in[0], w1, b1));
    Tensor g = relu(linear(h, w2, b2)) + h;
    return {linear(g, w3, b3)};
  };
  NoGradGuard no_grad;
  return jit::trace(fn, {randn({batch, 32})}, params);
}

Tensor eager_mlp(const std::vector<Tensor>& p, const Tensor& x) {
  Tensor h = relu(linear(x, p[0], p[1]));
  Tensor g = relu(linear(h, p[2], p[3])) + h;
  return linear(g, p[4], p[5]);
}

}  // namespace

TEST_CASE("traced module: planned runs match eager, allocate from the arena, keep stats true",
          "[jit][runtime]") {
  std::vector<Tensor> p;
  jit::Module m = traced_mlp(16, &p);
  NoGradGuard no_grad;
  auto& allocator = memory::cpu_allocator();
  Tensor x = randn({16, 32});
  Tensor ref = eager_mlp(p, x);

  const MemoryStats s0 = allocator.stats();
  Tensor y1 = m(x);  // recorded
  const MemoryStats s1 = allocator.stats();
  Tensor y2 = m(x);  // served from the arena
  const MemoryStats s2 = allocator.stats();
  REQUIRE(same(y1, ref));
  REQUIRE(same(y2, ref));
  // The second run asks the allocator for the arena and its output only.
  REQUIRE(s2.num_allocs - s1.num_allocs < s1.num_allocs - s0.num_allocs);
  REQUIRE(s2.num_allocs - s1.num_allocs <= 3);
  // Nothing but the outputs is held after a run (the arena went back to the cache).
  REQUIRE(s2.allocated_bytes - s1.allocated_bytes == s1.allocated_bytes - s0.allocated_bytes);
  // An output never lives in the arena: it outlives the run and the next run reuses the arena.
  Tensor y3 = m(x * 2);
  REQUIRE(same(y2, ref));
  REQUIRE(same(y3, eager_mlp(p, x * 2)));
  REQUIRE(y3.data_ptr() != y2.data_ptr());

  SECTION("non-contiguous inputs get their own plan") {
    Tensor xt = randn({32, 16}).t();
    for (int i = 0; i < 3; ++i) {
      REQUIRE(same(m(xt), eager_mlp(p, xt)));
      REQUIRE(same(m(x), ref));
    }
  }

  SECTION("planning off gives the same results") {
    jit::runtime::set_memory_planning(false);
    const MemoryStats a = allocator.stats();
    Tensor y = m(x);
    const MemoryStats b = allocator.stats();
    jit::runtime::set_memory_planning(true);
    REQUIRE(same(y, ref));
    REQUIRE(b.num_allocs - a.num_allocs > s2.num_allocs - s1.num_allocs);
  }

  SECTION("with gradients on, values and gradients match eager") {
    std::vector<Tensor> q;
    jit::Module mg = traced_mlp(16, &q);
    std::vector<Tensor> qe;
    for (Tensor& t : q) {
      t.requires_grad_(true);
      qe.push_back(t.detach().clone().requires_grad_(true));
    }
    AutoGradMode on(true);
    for (int i = 0; i < 3; ++i) {
      Tensor out = mg(x);
      REQUIRE(same(out, ref));
      (out * out).sum().backward();
      Tensor e = eager_mlp(qe, x);
      (e * e).sum().backward();
    }
    for (size_t k = 0; k < q.size(); ++k) REQUIRE(same(q[k].grad(), qe[k].grad()));
  }
}

TEST_CASE("in-place reuse never writes into a value that is still needed", "[jit][runtime]") {
  NoGradGuard no_grad;
  manual_seed(5);
  Tensor w = randn({8, 8});
  auto fn = [=](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    Tensor a = mm(in[0], w);
    Tensor b = relu(a);            // a dies here: may run in place
    Tensor c = mm(b, w);
    Tensor v = c.view({64});       // c's storage is also v's
    Tensor d = sigmoid(c);         // c dies here, but v (a view of it) is still alive
    Tensor e = exp(v).view({8, 8}) + d;
    Tensor f = mm(e, w);
    Tensor g = neg(f);             // f is also an output: never in place
    return {g, f, tanh(g)};
  };
  jit::Module m = jit::trace(fn, {randn({8, 8})}, {{"w", w}});
  for (int i = 0; i < 3; ++i) {
    Tensor x = randn({8, 8});
    std::vector<Tensor> got = m.forward({x});
    std::vector<Tensor> want = fn({x});
    REQUIRE(got.size() == 3);
    for (size_t k = 0; k < 3; ++k) REQUIRE(same(got[k], want[k]));
  }
}

TEST_CASE("caching allocator: allocate_exact and release_all_but keep blocks and statistics true",
          "[jit][runtime][allocator]") {
  auto& allocator = memory::cpu_allocator();
  allocator.free(allocator.allocate(4 << 20));  // a cached 4 MiB block that a 3 MiB request
  const MemoryStats before = allocator.stats();  // would take whole
  char* p = static_cast<char*>(allocator.allocate_exact((3 << 20) - 100));
  // Rounded up to the block size only, also at the peak.
  REQUIRE(allocator.stats().allocated_bytes == before.allocated_bytes + (3 << 20));
  REQUIRE(allocator.stats().peak_allocated_bytes <=
          std::max(before.peak_allocated_bytes, before.allocated_bytes + (3 << 20)));

  // Bad ranges: ValueError, nothing changed.
  using Ranges = std::vector<std::pair<size_t, size_t>>;
  REQUIRE_THROWS_AS(allocator.release_all_but(p, Ranges{{100, 512}}), ValueError);
  REQUIRE_THROWS_AS(allocator.release_all_but(p, Ranges{{0, 0}}), ValueError);
  REQUIRE_THROWS_AS(allocator.release_all_but(p, Ranges{{1024, 512}, {512, 512}}), ValueError);
  REQUIRE_THROWS_AS(allocator.release_all_but(p, Ranges{{3 << 20, 512}}), ValueError);
  REQUIRE(allocator.owns(p));

  allocator.release_all_but(p, Ranges{{512, 1024}, {1 << 20, 4096}});
  REQUIRE_FALSE(allocator.owns(p));
  REQUIRE(allocator.owns(p + 512));
  REQUIRE(allocator.owns(p + (1 << 20)));
  REQUIRE(allocator.stats().allocated_bytes == before.allocated_bytes + 1024 + 4096);
  REQUIRE(allocator.stats().active_allocs == before.active_allocs + 2);
  allocator.free(p + 512);
  allocator.free(p + (1 << 20));
  REQUIRE(allocator.stats().allocated_bytes == before.allocated_bytes);
  REQUIRE(allocator.stats().active_allocs == before.active_allocs);
  // The pieces merged back: the same request is served again without a new segment.
  const int64_t raw = allocator.stats().num_raw_allocs;
  void* q = allocator.allocate(3 << 20);
  REQUIRE(allocator.stats().num_raw_allocs == raw);
  allocator.free(q);
}

TEST_CASE("plan cache: keyed by input signature, bounded, least recently used out",
          "[jit][runtime]") {
  jit::runtime::PlanCache cache;
  auto plan = [](size_t bytes) {
    auto p = std::make_shared<MemoryPlan>();
    p->arena_bytes = bytes;
    return std::shared_ptr<const MemoryPlan>(p);
  };
  std::vector<jit::runtime::InputSignature> keys;
  for (int64_t i = 0; i < 9; ++i) keys.push_back({0, 1, i});
  for (size_t i = 0; i < 8; ++i) cache.insert(keys[i], plan(i));
  REQUIRE(cache.find(keys[0])->arena_bytes == 0);  // 0 is now the most recent
  cache.insert(keys[8], plan(8));                  // 1, the least recent, goes
  REQUIRE(cache.size() == jit::runtime::PlanCache::kCapacity);
  REQUIRE(cache.find(keys[1]) == nullptr);
  REQUIRE(cache.find(keys[0]) != nullptr);
  REQUIRE(cache.find(keys[8])->arena_bytes == 8);
  cache.insert(keys[8], plan(80));  // the same key again: replaced, not added
  REQUIRE(cache.size() == jit::runtime::PlanCache::kCapacity);
  REQUIRE(cache.find(keys[8])->arena_bytes == 80);
  // Signatures tell sizes, strides, dtypes and grad mode apart.
  NoGradGuard no_grad;
  Tensor a = randn({4, 6});
  auto sig = jit::runtime::input_signature({a});
  REQUIRE(sig == jit::runtime::input_signature({randn({4, 6})}));
  REQUIRE(sig != jit::runtime::input_signature({randn({6, 4}).t()}));
  REQUIRE(sig != jit::runtime::input_signature({randn({4, 6}, kFloat64)}));
  REQUIRE(sig != jit::runtime::input_signature({randn({4, 7})}));
  {
    AutoGradMode on(true);
    REQUIRE(sig != jit::runtime::input_signature({a}));
  }
}
