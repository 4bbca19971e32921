// parallel_for: splits [begin, end) across OpenMP threads when the range is
// large enough to pay for waking them (grain elements per thread at least).
#pragma once
#include <algorithm>
#include <cstdint>

#include <omp.h>

namespace ember::cpu {

constexpr int64_t kGrainSize = 32768;

template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  int64_t n = end - begin;
  if (n <= 0) return;
  int max_threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  // Ceiling division written so that a huge grain (INT64_MAX: "never split") cannot overflow.
  grain = std::max<int64_t>(grain, 1);
  int64_t threads = std::min<int64_t>(max_threads, n / grain + (n % grain != 0));
  if (threads <= 1) {
    f(begin, end);
    return;
  }
#pragma omp parallel num_threads(static_cast<int>(threads))
  {
    int64_t tid = omp_get_thread_num(), nt = omp_get_num_threads();
    int64_t chunk = (n + nt - 1) / nt;
    int64_t b = begin + tid * chunk, e = std::min(end, b + chunk);
    if (b < e) f(b, e);
  }
}

}  // namespace ember::cpu
