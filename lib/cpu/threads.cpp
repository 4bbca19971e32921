// set_num_threads/get_num_threads: OpenMP's thread count, which parallel_for and
// the BLAS calls (lib/cpu/blas.cpp) follow.
#include "ember/threads.h"

#include <omp.h>

#include "ember/error.h"

namespace ember {

void set_num_threads(int num_threads) {
  EMBER_CHECK_VALUE(num_threads > 0, "set_num_threads expects a positive integer, got ", num_threads);
  omp_set_num_threads(num_threads);
}

int get_num_threads() { return omp_get_max_threads(); }

}  // namespace ember
