// Whether a Scalar converts to a dtype without overflow, by PyTorch's rule (c10's
// checked_convert): the fill value of fill_/full, masked_fill_, index_fill_,
// scatter_(value=) and threshold is refused when it does not fit the tensor's dtype,
// instead of wrapping around silently.
#pragma once
#include "ember/dtype.h"
#include "ember/scalar.h"

namespace ember {

// True when value fits dtype: integers within the type's range (a negative integer
// Scalar may wrap into an unsigned type, as in C and torch); a float Scalar into an
// integer type must be finite and within range; into float16/bfloat16/float32 a
// finite value must be within the type's range (inf and nan fit).
bool scalar_fits(const Scalar& value, DType dtype);

// v rounded to dtype's precision (float16, bfloat16, float32; others unchanged): an
// op that compares with a constant in the input's dtype (the shrinks' lambd).
double rounded_to(DType dtype, double v);

// Throws RuntimeError "<op>: value cannot be converted to type int8_t without
// overflow" (torch's words) unless scalar_fits.
void check_scalar_fits(const char* op, const Scalar& value, DType dtype);

}  // namespace ember
