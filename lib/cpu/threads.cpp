// set_num_threads/get_num_threads: the threads ember's CPU kernels split work over
// (the pool of cpu/thread_pool.h), and OpenMP's count, which oneDNN's primitives follow.
#include "ember/threads.h"

#include <omp.h>

#include "cpu/thread_pool.h"
#include "ember/error.h"

namespace ember {

void set_num_threads(int num_threads) {
  EMBER_CHECK(num_threads > 0, "set_num_threads expects a positive integer, got ", num_threads);  // RuntimeError, as torch
  cpu::set_pool_threads(num_threads);
  omp_set_num_threads(num_threads);
}

int get_num_threads() { return cpu::pool_threads(); }

}  // namespace ember
