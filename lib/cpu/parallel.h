// parallel_for: splits [begin, end) across ember's CPU threads (thread_pool.h) when the
// range is large enough to pay for waking them (grain elements per thread at least).
#pragma once
#include <algorithm>
#include <cstdint>

#include "cpu/thread_pool.h"

namespace ember::cpu {

constexpr int64_t kGrainSize = 32768;

// Tasks per thread: a thread the OS has descheduled holds up the region by at most
// the task it started, and the others take over the rest (see thread_pool.h).
constexpr int64_t kTasksPerThread = 4;

// The number of threads worth waking for n elements at `grain` elements per thread.
inline int threads_for(int64_t n, int64_t grain) {
  // Ceiling division written so that a huge grain (INT64_MAX: "never split") cannot overflow.
  grain = std::max<int64_t>(grain, 1);
  return static_cast<int>(std::min<int64_t>(max_threads(), n / grain + (n % grain != 0)));
}

// parallel_for for kernels with per-thread scratch: f(b, e, slot), slot below
// max_threads() (0 on the calling thread). Only scratch may be indexed by slot: which
// piece runs on which slot changes from run to run.
template <typename F>
void parallel_for_slots(int64_t begin, int64_t end, int64_t grain, const F& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  const int threads = threads_for(n, grain);
  if (threads <= 1) {
    f(begin, end, 0);
    return;
  }
  const int64_t tasks = std::min<int64_t>(n, threads * kTasksPerThread);
  const int64_t chunk = (n + tasks - 1) / tasks;
  run_parallel((n + chunk - 1) / chunk, threads, [&](int64_t t, int slot) {
    const int64_t b = begin + t * chunk;
    f(b, std::min(end, b + chunk), slot);
  });
}

// Calls f(b, e) on disjoint pieces covering [begin, end). The pieces depend only on
// the range, the grain and the thread count, never on which thread runs which.
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  parallel_for_slots(begin, end, grain, [&](int64_t b, int64_t e, int) { f(b, e); });
}

}  // namespace ember::cpu
