// Bulk float -> integer conversion of contiguous buffers, by the rule of
// lib/kernels/float_to_int.h. The element-wise loop of that rule vectorizes, but
// its selects and gcc's narrowing make it slower than PyTorch's for the small
// integer types; on x86 the SSE2 conversion instructions (cvttps2dq, cvttpd2dq)
// give the rule's int32 result themselves (INT32_MIN, the "integer indefinite"
// value, for NaN, +-inf and out of range), and packing their low bits gives the
// wrapped int16 / int8 / uint8 results, four values per instruction (x86-64 only).
#pragma once
#include <cstdint>

#include "ember/dtype.h"

namespace ember::cpu {

// dst[i] = float_to_int(src[i]) for n contiguous elements, on this thread (the caller
// splits a large tensor into parallel chunks); false (nothing written) where this pair of dtypes has no bulk path
// here, or off x86: the caller then converts element by element with cast_element.
// src: float32, float64, float16, bfloat16; dst: int32, int16, int8, uint8 (uint8 not
// from float64, whose rule wraps through int64).
// Whether float_to_int_contiguous has a bulk path for this pair on this build.
bool float_to_int_has_bulk(DType dst_dtype, DType src_dtype);
bool float_to_int_contiguous(void* dst, DType dst_dtype, const void* src, DType src_dtype, int64_t n);

}  // namespace ember::cpu
