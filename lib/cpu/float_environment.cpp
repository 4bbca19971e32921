// set_flush_denormal (ember/float_environment.h): MXCSR's FTZ (bit 15) and DAZ (bit 6).
#include "ember/float_environment.h"

#include <omp.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace ember {

namespace {

#if defined(__x86_64__) || defined(__i386__)
constexpr unsigned kFlushToZero = 1u << 15, kDenormalsAreZero = 1u << 6;

void set_this_thread(bool on) {
  unsigned csr = _mm_getcsr();
  csr = on ? (csr | kFlushToZero | kDenormalsAreZero) : (csr & ~(kFlushToZero | kDenormalsAreZero));
  _mm_setcsr(csr);
}

bool cpu_has_daz() { return __builtin_cpu_supports("sse3"); }
#endif

}  // namespace

bool set_flush_denormal(bool on) {
#if defined(__x86_64__) || defined(__i386__)
  if (!cpu_has_daz()) return false;
  set_this_thread(on);
  // Each OpenMP thread has its own MXCSR: set it on all of them.
  const int threads = omp_get_max_threads();
#pragma omp parallel num_threads(threads)
  set_this_thread(on);
  return true;
#else
  (void)on;
  return false;
#endif
}

}  // namespace ember
