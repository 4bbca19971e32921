// The CPU thread pool: see thread_pool.h for why it exists and what it promises.
//
// One region runs at a time. Its description (the task function, the number of tasks
// and of slots) is written by the caller before `open` is set and stays unchanged
// until the caller has closed the region and seen `active` drop to zero, so a worker
// that has counted itself in `active` and then sees `open` reads a stable region.
// `open` and `active` are sequentially consistent on both sides (the caller stores
// open = false, then loads active; a worker adds to active, then loads open): either
// the caller waits for the worker, or the worker sees the region closed and leaves it.
#include "cpu/thread_pool.h"

#include <omp.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "cpu/float_environment_state.h"

namespace ember::cpu {

namespace {

// How long a worker keeps looking for the next region before it sleeps. A training
// step issues a kernel every few to few hundred microseconds, some of them oneDNN
// primitives on OpenMP's threads; a worker that has gone to sleep joins the next region
// late (a futex wake-up takes tens of microseconds in a VM), so the caller does most of
// it alone. The spin yields the core at each turn after a short burst, so that it costs
// the other threads little (measured: the digits CNN epoch, docs/PERF.md).
constexpr auto kSpinTime = std::chrono::milliseconds(1);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

thread_local bool t_in_region = false;

struct Pool {
  // The region: written by its caller while no worker is inside (see the note above).
  TaskFunction task = nullptr;
  void* context = nullptr;
  int64_t tasks = 0;
  int slots = 0;
  std::exception_ptr error;
  std::mutex error_mutex;

  std::atomic<int64_t> next_task{0};
  std::atomic<int> joined{0};    // workers that took a slot in this region
  std::atomic<int> active{0};    // workers between joining and leaving
  std::atomic<bool> open{false};
  std::atomic<uint32_t> generation{0};  // bumped when a region opens; workers wait on it
  std::atomic<int> sleepers{0};

  std::atomic_flag busy = ATOMIC_FLAG_INIT;  // held by the thread whose region runs
  std::mutex spawn_mutex;
  std::atomic<int> workers{0};  // started; only grows, under spawn_mutex
};

Pool* g_pool = new Pool();  // never destroyed: workers may still sleep on it at exit
std::atomic<int> g_threads{0};  // 0: not chosen yet (see pool_threads)

// Runs tasks of the open region until none is left to claim.
void claim_tasks(Pool& p, int slot) {
  for (;;) {
    const int64_t i = p.next_task.fetch_add(1, std::memory_order_relaxed);
    if (i >= p.tasks) return;
    try {
      p.task(p.context, i, slot);
    } catch (...) {
      std::lock_guard<std::mutex> lock(p.error_mutex);
      if (!p.error) p.error = std::current_exception();
      p.next_task.store(p.tasks, std::memory_order_relaxed);  // skip what nobody started
    }
  }
}

// Waits until a region newer than `seen` opens; returns its generation.
uint32_t wait_for_region(Pool& p, uint32_t seen) {
  const auto until = std::chrono::steady_clock::now() + kSpinTime;
  for (int spins = 0;; ++spins) {
    uint32_t g = p.generation.load(std::memory_order_acquire);
    if (g != seen) return g;
    // Spin politely: after a short burst, yield the core at each turn, so that a
    // thread that has work (oneDNN's OpenMP threads, the caller itself when the OS put
    // both on one core) runs rather than waits behind this one.
    if (spins < 256) {
      cpu_relax();
    } else {
      std::this_thread::yield();
      if (std::chrono::steady_clock::now() > until) break;
    }
  }
  p.sleepers.fetch_add(1);
  uint32_t g;
  while ((g = p.generation.load()) == seen) p.generation.wait(seen);
  p.sleepers.fetch_sub(1);
  return g;
}

void worker_main(Pool* pool) {
  Pool& p = *pool;
  t_in_region = true;    // a parallel_for inside a task runs on this thread alone
  omp_set_num_threads(1);  // and so do BLAS and oneDNN calls made from a task
  uint32_t seen = p.generation.load();
  unsigned float_mode = current_float_mode();
  for (;;) {
    seen = wait_for_region(p, seen);
    p.active.fetch_add(1);
    if (p.open.load()) {
      const int slot = p.joined.fetch_add(1) + 1;
      if (slot < p.slots) {
        if (float_mode != wanted_float_mode()) float_mode = apply_float_mode(wanted_float_mode());
        claim_tasks(p, slot);
      }
    }
    p.active.fetch_sub(1);
  }
}

// Starts workers up to count. Every region calls it: the common case (enough workers
// already) reads one atomic and takes no lock.
void ensure_workers(Pool& p, int count) {
  if (p.workers.load(std::memory_order_acquire) >= count) return;
  std::lock_guard<std::mutex> lock(p.spawn_mutex);
  for (int w = p.workers.load(); w < count; ++w) {
    std::thread(worker_main, &p).detach();
    p.workers.store(w + 1, std::memory_order_release);
  }
}

// After fork() the child has only the forking thread: the workers are gone, and the
// pool's locks may be held by threads that no longer exist. Start over with a new pool
// (the old one is left as it is; its memory is the parent's).
void reset_after_fork() {
  g_pool = new Pool();
  t_in_region = false;
}

[[maybe_unused]] const bool g_fork_handler = [] {
  pthread_atfork(nullptr, nullptr, reset_after_fork);
  return true;
}();

// Marks the calling thread as inside a region and makes OpenMP calls from its tasks
// single-threaded, for the region's lifetime.
class CallerScope {
 public:
  CallerScope() : omp_threads_(omp_get_max_threads()) {
    t_in_region = true;
    omp_set_num_threads(1);
  }
  ~CallerScope() {
    omp_set_num_threads(omp_threads_);
    t_in_region = false;
  }
  CallerScope(const CallerScope&) = delete;
  CallerScope& operator=(const CallerScope&) = delete;

 private:
  int omp_threads_;
};

// EMBER_THREAD_POOL=openmp runs regions as OpenMP parallel loops instead (static
// schedule, slot = OpenMP's thread number): the behaviour before the pool, kept to
// compare the two (bench/contention.py) and as a way out should the pool misbehave.
std::atomic<bool> g_openmp_regions{[] {
  const char* v = std::getenv("EMBER_THREAD_POOL");
  return v != nullptr && std::strcmp(v, "openmp") == 0;
}()};

bool use_openmp_regions() { return g_openmp_regions.load(std::memory_order_relaxed); }

void run_openmp_region(int64_t tasks, int threads, TaskFunction task, void* context) {
  std::exception_ptr error;
  t_in_region = true;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < tasks; ++i) {
    const bool nested_before = t_in_region;
    t_in_region = true;  // worker threads of the team, too
    try {
      task(context, i, omp_get_thread_num());
    } catch (...) {
#pragma omp critical(ember_region_error)
      if (!error) error = std::current_exception();
    }
    t_in_region = nested_before;
  }
  t_in_region = false;
  if (error) std::rethrow_exception(error);
}

}  // namespace

int pool_threads() {
  int n = g_threads.load(std::memory_order_relaxed);
  if (n > 0) return n;
  // OMP_NUM_THREADS, or the number of cores: what OpenMP itself would use.
  n = std::max(1, omp_get_max_threads());
  int expected = 0;
  g_threads.compare_exchange_strong(expected, n);
  return g_threads.load(std::memory_order_relaxed);
}

void set_pool_threads(int threads) { g_threads.store(std::max(1, threads)); }

void set_openmp_regions(bool openmp) { g_openmp_regions.store(openmp); }

int max_threads() { return t_in_region ? 1 : pool_threads(); }

bool in_parallel_region() { return t_in_region; }

void run_parallel(int64_t tasks, int threads, TaskFunction task, void* context) {
  if (tasks <= 0) return;
  threads = static_cast<int>(std::min<int64_t>(std::min(threads, max_threads()), tasks));
  Pool& p = *g_pool;
  if (threads <= 1 || p.busy.test_and_set(std::memory_order_acquire)) {
    // One thread: as a region of its own, so that BLAS and oneDNN calls inside stay
    // single-threaded here too (the thread count said so, or the pool is taken).
    if (t_in_region) {
      for (int64_t i = 0; i < tasks; ++i) task(context, i, 0);
    } else {
      CallerScope scope;
      for (int64_t i = 0; i < tasks; ++i) task(context, i, 0);
    }
    return;
  }
  if (use_openmp_regions()) {
    try {
      run_openmp_region(tasks, threads, task, context);
    } catch (...) {
      p.busy.clear(std::memory_order_release);
      throw;
    }
    p.busy.clear(std::memory_order_release);
    return;
  }
  ensure_workers(p, threads - 1);
  p.task = task;
  p.context = context;
  p.tasks = tasks;
  p.slots = threads;
  p.error = nullptr;
  p.next_task.store(0, std::memory_order_relaxed);
  p.joined.store(0, std::memory_order_relaxed);
  p.open.store(true);
  p.generation.fetch_add(1);
  if (p.sleepers.load() > 0) p.generation.notify_all();
  {
    CallerScope scope;
    claim_tasks(p, 0);
  }
  p.open.store(false);
  for (int spins = 0; p.active.load() != 0; ++spins) {
    if (spins < 4096) cpu_relax();
    else std::this_thread::yield();  // a worker was descheduled inside a task it started
  }
  std::exception_ptr error = std::move(p.error);
  p.error = nullptr;
  p.busy.clear(std::memory_order_release);
  if (error) std::rethrow_exception(error);
}

}  // namespace ember::cpu
