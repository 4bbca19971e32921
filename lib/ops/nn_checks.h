// Argument checks shared by the nn op functions (lib/ops/nn_*.cpp), raising
// the exception kind PyTorch raises for the same mistake.
#pragma once
#include "ember/ops/nn.h"

namespace ember::nn_checks {

inline void check_defined(const Tensor& t, const char* op, const char* name) {
  EMBER_CHECK(t.defined(), op, ": ", name, " is an undefined tensor");
}

// Float-only ops on integer or bool tensors: NotImplementedError, as PyTorch's
// "<kernel>" not implemented for 'Long'.
inline void check_floating(const Tensor& t, const char* op, const char* name = "input") {
  if (!t.is_floating_point())
    throw NotImplementedError(detail::str(op, ": not implemented for ", name, " of dtype ",
                                          dtype_name(t.dtype()), " (expected a floating point tensor)"));
}

// A normalization parameter must have the input's dtype, or float32 when the
// input is float16/bfloat16 (PyTorch's "mixed dtype" rule on the CPU).
inline void check_param_dtype(const Tensor& p, const Tensor& input, const char* op, const char* name) {
  DType in = input.dtype();
  bool mixed_ok = (in == kFloat16 || in == kBFloat16) && p.dtype() == kFloat32;
  EMBER_CHECK(p.dtype() == in || mixed_ok, op, ": mixed dtype: expected ", name, " to have dtype ",
              dtype_name(in), (in == kFloat16 || in == kBFloat16) ? " or float32" : "",
              " like the input, got ", dtype_name(p.dtype()));
}

// Whether a tensor of shape `from` broadcasts to exactly `to` (no growth of `to`).
inline bool broadcasts_to(const DimVector& from, const DimVector& to) {
  if (from.size() > to.size()) return false;
  const size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[lead + i]) return false;
  return true;
}

}  // namespace ember::nn_checks
