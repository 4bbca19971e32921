// set_flush_denormal (ember/float_environment.h): MXCSR's FTZ (bit 15) and DAZ (bit 6),
// on the calling thread, on OpenMP's threads (oneDNN's primitives run there), and, through
// the wanted mode, on the thread pool's workers (float_environment_state.h).
#include "ember/float_environment.h"

#include <omp.h>

#include <atomic>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "cpu/float_environment_state.h"

namespace ember {

namespace cpu {

namespace {
#if defined(__x86_64__) || defined(__i386__)
constexpr unsigned kFlushBits = (1u << 15) | (1u << 6);  // FTZ | DAZ
#endif
std::atomic<unsigned> g_wanted_mode{0};
}  // namespace

unsigned wanted_float_mode() { return g_wanted_mode.load(std::memory_order_relaxed); }
void set_wanted_float_mode(unsigned mode) { g_wanted_mode.store(mode); }

unsigned current_float_mode() {
#if defined(__x86_64__) || defined(__i386__)
  return _mm_getcsr() & kFlushBits;
#else
  return 0;
#endif
}

unsigned apply_float_mode(unsigned mode) {
#if defined(__x86_64__) || defined(__i386__)
  _mm_setcsr((_mm_getcsr() & ~kFlushBits) | (mode & kFlushBits));
#endif
  return current_float_mode();
}

}  // namespace cpu

bool set_flush_denormal(bool on) {
#if defined(__x86_64__) || defined(__i386__)
  if (!__builtin_cpu_supports("sse3")) return false;  // DAZ needs it
  const unsigned mode = on ? cpu::kFlushBits : 0u;
  cpu::set_wanted_float_mode(mode);
  cpu::apply_float_mode(mode);
  const int threads = omp_get_max_threads();
#pragma omp parallel num_threads(threads)
  cpu::apply_float_mode(mode);
  return true;
#else
  (void)on;
  return false;
#endif
}

}  // namespace ember
