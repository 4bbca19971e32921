// Bulk float32 <-> float16 conversion of contiguous buffers. The scalar Half
// conversion in ember/half.h rounds correctly but does not vectorize (its
// branches handle subnormals, inf and nan one value at a time); on x86 CPUs
// with F16C the hardware instructions do the same rounding (nearest-even)
// eight values at a time.
#pragma once
#include <cstdint>

#include "ember/half.h"

namespace ember::cpu {

// Whether the bulk converters below use the hardware path on this CPU.
bool has_f16c();
void float_to_half(Half* dst, const float* src, int64_t n);
void half_to_float(float* dst, const Half* src, int64_t n);

}  // namespace ember::cpu
