// Products and sums rounded one at a time on the device too. nvcc contracts
// a * b + c into one fused multiply-add (rounded once), which the host compiler
// does not do (x86-64 without -mfma): where a CPU and a CUDA kernel must get the
// same bits (random numbers, arange, interpolate's source indices), the shared
// EMBER_HOST_DEVICE code writes those steps with these.
#pragma once
#include "ember/half.h"  // EMBER_HOST_DEVICE

namespace ember {

EMBER_HOST_DEVICE inline double mul_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
EMBER_HOST_DEVICE inline float mul_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
EMBER_HOST_DEVICE inline double add_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
EMBER_HOST_DEVICE inline float add_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

}  // namespace ember
