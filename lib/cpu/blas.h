// BLAS for the CPU kernels: row-major gemm, gemv and dot on float and double.
//
// Note [BLAS loading]: the libraries are opened with dlopen on first use, not
// linked, because Debian's OpenBLAS 0.3.21 does not know recent CPUs and falls
// back to its oldest kernels (5x slower) unless OPENBLAS_CORETYPE is set before
// the library initializes; a linked library initializes before main. So on
// first use ember sets OPENBLAS_CORETYPE from the CPU's features (unless the user
// set it), then opens OpenBLAS, and also opens oneDNN, whose sgemm detects the
// CPU itself and is faster than OpenBLAS on 2 threads from n = 128 up (numbers
// in blas.cpp). float32 gemm goes to oneDNN (OpenBLAS for tiny products),
// float64 and gemv/dot to OpenBLAS. Without either library the reference loops
// of gemm_ref.h run (correct, slow). EMBER_BLAS=openblas|onednn|none restricts
// the choice (to test or compare the fallbacks).
//
// Threading: OpenBLAS runs single-threaded and ember splits large products over
// its OpenMP threads itself, so only one thread pool (OpenMP, shared with oneDNN
// and the other kernels) ever spins on the cores. Called inside an OpenMP
// parallel region, every routine runs on the calling thread only.
#pragma once
#include <cstdint>
#include <string>

namespace ember::cpu::blas {

// C[m,n] = alpha * op(A) @ op(B) + beta * C, all row-major with row strides
// lda, ldb, ldc (in elements). op(A) is m x k: A itself (m rows of k) or, with
// trans_a, the transpose of A stored as k rows of m; likewise op(B) is k x n.
// beta == 0 means C is only written (NaNs in it are ignored). Any m, n, k >= 0.
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
          const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
          int64_t ldc);
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
          const double* a, int64_t lda, const double* b, int64_t ldb, double beta, double* c,
          int64_t ldc);

// y[m] = alpha * A[m,n] @ x + beta * y (trans: y[n] = alpha * A^T @ x + beta * y),
// A row-major with row stride lda; x and y with element strides incx, incy (> 0).
void gemv(bool trans, int64_t m, int64_t n, float alpha, const float* a, int64_t lda,
          const float* x, int64_t incx, float beta, float* y, int64_t incy);
void gemv(bool trans, int64_t m, int64_t n, double alpha, const double* a, int64_t lda,
          const double* x, int64_t incx, double beta, double* y, int64_t incy);

// sum_i x[i * incx] * y[i * incy]; strides may be any value (negative or 0 too).
float dot(int64_t n, const float* x, int64_t incx, const float* y, int64_t incy);
double dot(int64_t n, const double* x, int64_t incx, const double* y, int64_t incy);

// Which libraries were found and which kernels they chose, e.g.
// "sgemm: oneDNN; dgemm/gemv/dot: OpenBLAS 0.3.21 (core SkylakeX, OPENBLAS_CORETYPE=SkylakeX set by ember)".
std::string describe();

}  // namespace ember::cpu::blas
