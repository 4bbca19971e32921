// The threads ember's CPU kernels split their work over.
//
// Why not OpenMP's parallel regions: a region ends at a barrier that waits for every
// thread of the team, also for one the OS has descheduled because another process
// wants the core. On a 2-core machine with a compile job running, that wait is a
// scheduler time slice (several ms) per region, and a training step of small regions
// went from 0.8 ms to 18 ms (docs/PERF.md, "CPU contention").
//
// Here the calling thread takes part in its own region and the work is cut into more
// tasks than threads, claimed one at a time from a shared counter. A worker that has
// not woken up yet simply finds nothing left to claim: the caller waits only for tasks
// a worker has actually started, never for a worker to arrive. On a quiet machine the
// workers spin briefly between regions, so they pick up the next one within ~100 ns.
//
// Which task runs on which thread is not fixed, so a kernel that keeps per-thread
// state indexes it by run_parallel's `slot` (0 for the caller, 1.. for the workers that
// joined; below the region's thread count), and one that must be reproducible combines
// results per task, not per thread.
//
// OpenMP stays for what oneDNN's primitives do inside: while a pool region runs, its
// participants see one OpenMP thread (omp_get_max_threads() == 1), so a BLAS or
// oneDNN call made from a task runs single-threaded, as it did inside an OpenMP region.
#pragma once

#include <cstdint>
#include <utility>

namespace ember::cpu {

// Threads a new region may use: ember::get_num_threads() outside a region, 1 inside
// one (regions do not nest; an inner parallel_for runs on the calling thread).
int max_threads();

// True on a thread that is running a task of a region (the caller included).
bool in_parallel_region();

// The count ember::set_num_threads sets (also OpenMP's, for oneDNN's primitives).
void set_pool_threads(int threads);
int pool_threads();

// Regions as OpenMP parallel loops instead of on the pool (EMBER_THREAD_POOL=openmp at
// start-up): the behaviour before the pool, to compare the two side by side.
void set_openmp_regions(bool openmp);

// Runs task(context, index, slot) for every index in [0, tasks), on the calling thread
// and on up to threads - 1 workers, and returns when all have run. slot identifies the
// thread within the region (0 = the caller) and is below `threads`. An exception thrown
// by a task is rethrown here once the tasks already started have finished; the tasks
// not yet started are skipped. When another thread's region holds the pool, this one
// runs on the calling thread alone.
using TaskFunction = void (*)(void* context, int64_t index, int slot);
void run_parallel(int64_t tasks, int threads, TaskFunction task, void* context);

// run_parallel over a callable: f(index, slot).
template <typename F>
void run_parallel(int64_t tasks, int threads, const F& f) {
  run_parallel(
      tasks, threads,
      [](void* context, int64_t index, int slot) { (*static_cast<const F*>(context))(index, slot); },
      const_cast<void*>(static_cast<const void*>(&f)));
}

}  // namespace ember::cpu
