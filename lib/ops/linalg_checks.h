// Argument checks of the matrix decompositions, with PyTorch's messages and exception
// kinds (lib/ops/linalg_decompositions.cpp, linalg_solve.cpp), and the host round trip
// of CUDA inputs.
#pragma once
#include <string>
#include <utility>

#include "dispatch/dispatcher.h"

#include "ember/dtype.h"
#include "ember/error.h"
#include "ember/tensor.h"

namespace ember::linalg_checks {

// float32 or float64: integers, bool and low precision floats raise NotImplementedError.
inline void check_dtype(const char* api, const Tensor& a) {
  EMBER_CHECK_AS(NotImplementedError, is_floating(a.dtype()), api,
                 ": Expected a floating point or complex tensor as input. Got ", scalar_type_name(a.dtype()));
  EMBER_CHECK_AS(NotImplementedError, a.dtype() == kFloat32 || a.dtype() == kFloat64, api,
                 ": Low precision dtypes not supported. Got ", scalar_type_name(a.dtype()));
}

inline void check_matrix(const char* api, const Tensor& a, const char* name = "A") {
  EMBER_CHECK(a.dim() >= 2, api, ": The input tensor ", name, " must have at least 2 dimensions.");
}

inline void check_square(const char* api, const Tensor& a, const char* name = "A") {
  check_matrix(api, a, name);
  EMBER_CHECK(a.size(-1) == a.size(-2), api, ": ", name,
              " must be batches of square matrices, but they are ", a.size(-2), " by ", a.size(-1), " matrices");
}

// float32/float64 batches of matrices (square ones when `square`).
inline void check_input(const char* api, const Tensor& a, bool square) {
  if (square) check_square(api, a);
  else check_matrix(api, a);
  check_dtype(api, a);
}

// The first failing batch element's (index, info) of an int32 info tensor, or (-1, 0):
// a host read.
inline std::pair<int64_t, int> first_failure(const Tensor& info) {
  note_host_read("linalg: checking the info of a factorization");
  Tensor c = info.cpu().contiguous();
  const int* p = static_cast<const int*>(c.data_ptr());
  for (int64_t i = 0; i < c.numel(); ++i)
    if (p[i] != 0) return {i, p[i]};
  return {-1, 0};
}

// "(Batch element b): " for a batched call, as PyTorch's messages start.
inline std::string batch_prefix(const Tensor& info, int64_t b) {
  return info.dim() > 0 ? detail::str("(Batch element ", b, "): ") : std::string();
}

// The error of an LU factorization with a zero pivot U[i, i] in batch element b.
[[noreturn]] inline void throw_zero_pivot(const char* api, const Tensor& info, int64_t b, int i) {
  throw Error(detail::str("torch.", api, ": ", batch_prefix(info, b), "U[", i, ",", i,
                          "] is zero and using it on lu_solve would result in a division by zero. "
                          "If you still want to perform the factorization, consider calling "
                          "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"));
}

// Whether the call runs on the host for a CUDA input (no cuSOLVER kernels yet).
inline bool on_cuda(const Tensor& a) { return a.defined() && a.is_cuda(); }

}  // namespace ember::linalg_checks
