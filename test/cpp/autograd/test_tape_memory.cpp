// The tape leaks nothing: 10,000 training steps of a small MLP (two linear
// layers, an in-place op on a view of the first one's output, cross-entropy, SGD
// under NoGradGuard) hold memory flat, by the
// caching allocator's statistics and by the process's resident memory.
#include <catch2/catch.hpp>

#include <cstdio>
#include <unistd.h>

#include "ember/ember.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

using namespace ember;

namespace {

// Resident memory of this process, from /proc/self/statm (pages * page size).
int64_t resident_bytes() {
  long size = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  REQUIRE(f);
  REQUIRE(std::fscanf(f, "%ld %ld", &size, &resident) == 2);
  std::fclose(f);
  return static_cast<int64_t>(resident) * sysconf(_SC_PAGESIZE);
}

// Bytes malloc has handed out and not got back (node, TensorImpl and
// AutogradMeta objects live there, not in the caching allocator).
int64_t heap_in_use() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
  return static_cast<int64_t>(mallinfo2().uordblks);
#else
  return 0;
#endif
}

struct Mlp {
  Tensor w1, b1, w2, b2;
  Mlp() {
    manual_seed(0);
    w1 = (randn({32, 16}, kFloat32) * 0.25).requires_grad_();
    b1 = zeros({32}, kFloat32).requires_grad_();
    w2 = (randn({4, 32}, kFloat32) * 0.25).requires_grad_();
    b2 = zeros({4}, kFloat32).requires_grad_();
  }
  double step(const Tensor& x, const Tensor& target) {
    Tensor pre = linear(x, w1, b1);
    pre.slice(1, 0, std::nullopt, 2).mul_(0.5);  // an in-place op on a view: CopySlices
    Tensor logits = linear(relu(pre), w2, b2);
    Tensor loss = cross_entropy(logits, target);
    loss.backward();
    NoGradGuard no_grad;
    for (Tensor* p : {&w1, &b1, &w2, &b2}) {
      p->sub_(p->grad() * 0.1);
      p->set_grad(Tensor());  // zero_grad(set_to_none=True)
    }
    return loss.item<double>();
  }
};

}  // namespace

TEST_CASE("10,000 forward/backward steps of a small MLP hold memory flat") {
  Mlp model;
  Tensor x = randn({16, 16}, kFloat32);
  Tensor target = remainder(arange(16, kInt64), 4);
  double first = model.step(x, target);
  for (int i = 1; i < 50; ++i) model.step(x, target);  // warm-up: the allocator's cache fills
  MemoryStats before = memory_stats();
  int64_t rss_before = resident_bytes(), heap_before = heap_in_use();

  double last = 0;
  for (int i = 0; i < 10000; ++i) last = model.step(x, target);

  MemoryStats after = memory_stats();
  CHECK(last < 0.5 * first);  // it did train
  CHECK(after.allocated_bytes == before.allocated_bytes);
  CHECK(after.reserved_bytes == before.reserved_bytes);
  CHECK(after.num_raw_allocs == before.num_raw_allocs);
  CHECK(after.num_allocs - after.num_frees == before.num_allocs - before.num_frees);
#if defined(__SANITIZE_ADDRESS__)
  // ASan keeps freed blocks in quarantine (256 MB by default) and replaces malloc,
  // so the heap and the resident size grow by design; its own leak check at exit
  // stands in for these two (make sanitize, docs/RELIABILITY.md).
  WARN("heap and RSS checks skipped: built with AddressSanitizer (its quarantine grows them)");
  (void)heap_before;
  (void)rss_before;
#else
  // Leaking even 32 bytes a step would show as 320 KB here.
  CHECK(heap_in_use() - heap_before < 64 * 1024);
  CHECK(resident_bytes() - rss_before < 1024 * 1024);
#endif
}
