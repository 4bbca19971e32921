// One jit::Module called from 8 threads at once: every call gives the result a
// single-threaded call gives (the run plan, the shape and memory-plan caches are
// shared; each run has its own arena).
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "ember/ember.h"
#include "memory/caching_allocator.h"

using namespace ember;

namespace {

bool same(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && (a - b).abs().max().item<double>() < 1e-5;
}

// A small CNN and a residual MLP head, traced.
jit::Module traced_cnn(int64_t batch) {
  manual_seed(11);
  Tensor cw = randn({8, 1, 3, 3}) * 0.3, cb = randn({8}) * 0.1;
  Tensor w1 = randn({32, 8 * 4 * 4}) * 0.1, b1 = randn({32}) * 0.1;
  Tensor w2 = randn({10, 32}) * 0.2, b2 = randn({10}) * 0.1;
  jit::NamedTensorList params = {{"cw", cw}, {"cb", cb}, {"w1", w1}, {"b1", b1}, {"w2", w2}, {"b2", b2}};
  auto fn = [=](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    Tensor h = max_pool2d(relu(conv2d(in[0], cw, cb, {1, 1}, {1, 1})), {2, 2});
    Tensor f = relu(linear(h.view({h.size(0), -1}), w1, b1));
    Tensor logits = linear(f, w2, b2);
    return {softmax(logits, 1), logits.sigmoid() + 1.0};
  };
  NoGradGuard no_grad;
  return jit::trace(fn, {randn({batch, 1, 8, 8})}, params);
}

}  // namespace

TEST_CASE("jit::Module: 8 threads calling one module at once get correct results",
          "[jit][runtime][threads]") {
  constexpr int kThreads = 8, kCalls = 40;
  const int64_t batch = 4;
  jit::Module m = traced_cnn(batch);
  NoGradGuard no_grad;
  // Each thread has its own inputs; the reference is computed on this thread first
  // (before any thread has run the module, so the threads also race to build the
  // run plan and to record the first memory plan).
  std::vector<Tensor> inputs, want0, want1;
  for (int t = 0; t < kThreads; ++t) {
    inputs.push_back(randn({batch, 1, 8, 8}));
    if (t % 2) inputs.back() = inputs.back().transpose(2, 3);  // two input signatures
  }
  {
    jit::Module reference = traced_cnn(batch);  // a separate module: m stays fresh
    for (const Tensor& x : inputs) {
      std::vector<Tensor> out = reference.forward({x});
      want0.push_back(out[0]);
      want1.push_back(out[1]);
    }
  }
  const int64_t allocated_before = memory::cpu_allocator().stats().allocated_bytes;
  std::atomic<int> wrong{0}, failed{0}, ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        NoGradGuard off;  // grad mode is per thread
        ready.fetch_add(1);
        while (ready.load() < kThreads) std::this_thread::yield();
        for (int i = 0; i < kCalls; ++i) {
          std::vector<Tensor> out = m.forward({inputs[t]});
          if (!same(out[0], want0[t]) || !same(out[1], want1[t])) wrong.fetch_add(1);
        }
      } catch (...) {
        failed.fetch_add(1);
      }
    });
  for (std::thread& th : threads) th.join();
  REQUIRE(failed.load() == 0);
  REQUIRE(wrong.load() == 0);
  // Every arena went back: the threads' results are gone, so nothing more is held.
  REQUIRE(memory::cpu_allocator().stats().allocated_bytes == allocated_before);
}

TEST_CASE("jit::Module: threads with gradients on and off share a module", "[jit][runtime][threads]") {
  jit::Module m = traced_cnn(2);
  Tensor x = randn({2, 1, 8, 8});
  std::vector<Tensor> want;
  {
    NoGradGuard no_grad;
    want = traced_cnn(2).forward({x});
  }
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      try {
        AutoGradMode mode(t % 2 == 0);
        for (int i = 0; i < 25; ++i) {
          std::vector<Tensor> out = m.forward({x});
          if (!same(out[0], want[0]) || !same(out[1], want[1])) wrong.fetch_add(1);
        }
      } catch (...) {
        failed.fetch_add(1);
      }
    });
  for (std::thread& th : threads) th.join();
  REQUIRE(failed.load() == 0);
  REQUIRE(wrong.load() == 0);
}
