// Reference matrix product: plain loops over any strides and any element type.
// It computes integer products (which no BLAS does) and stands in for BLAS when
// no BLAS library could be loaded; the tests check the BLAS paths against it.
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/dtype_dispatch.h"
#include "cpu/parallel.h"

namespace ember::cpu {

// The type a product accumulates in: float for float16/bfloat16/float32,
// double for double, and for integers uint64_t, whose wrap-around arithmetic is
// defined and gives the same low bits as PyTorch's wrapping integer product.
template <typename T>
using gemm_acc_t = std::conditional_t<std::is_integral_v<T>, uint64_t, opmath_t<T>>;

template <typename Acc, typename T>
inline Acc to_acc(T v) {
  if constexpr (std::is_integral_v<T>) return static_cast<uint64_t>(static_cast<int64_t>(v));
  else return static_cast<Acc>(v);
}

template <typename T, typename Acc>
inline T from_acc(Acc v) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<int64_t>(v));
  else return convert<T>(v);
}

// A strided matrix: element (i, j) at data[i * rs + j * cs].
template <typename T>
struct StridedMatrix {
  T* data;
  int64_t rs, cs;
  T& operator()(int64_t i, int64_t j) const { return data[i * rs + j * cs]; }
};

// C[m,n] = alpha * A[m,k] @ B[k,n] + beta * C (beta == 0: C is only written).
// Rows of C are split across OpenMP threads (unless inside a parallel region).
template <typename T>
void gemm_ref(int64_t m, int64_t n, int64_t k, gemm_acc_t<T> alpha, StridedMatrix<const T> a,
              StridedMatrix<const T> b, gemm_acc_t<T> beta, StridedMatrix<T> c) {
  using Acc = gemm_acc_t<T>;
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n * k));
  parallel_for(0, m, grain, [&](int64_t i0, int64_t i1) {
    std::vector<Acc> row(static_cast<size_t>(n));
    for (int64_t i = i0; i < i1; ++i) {
      std::fill(row.begin(), row.end(), Acc(0));
      for (int64_t p = 0; p < k; ++p) {
        Acc aip = to_acc<Acc>(a(i, p));
        const T* bp = &b(p, 0);
        for (int64_t j = 0; j < n; ++j) row[j] += aip * to_acc<Acc>(bp[j * b.cs]);
      }
      for (int64_t j = 0; j < n; ++j) {
        Acc v = alpha * row[j];
        if (beta != Acc(0)) v += beta * to_acc<Acc>(c(i, j));
        c(i, j) = from_acc<T>(v);
      }
    }
  });
}

}  // namespace ember::cpu
