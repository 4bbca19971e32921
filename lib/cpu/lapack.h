// LAPACK for the CPU kernels of the matrix decompositions (lib/cpu/lapack_kernels.cpp):
// typed wrappers over the Fortran routines of the OpenBLAS that blas.cpp opens.
//
// Why OpenBLAS: Debian's OpenBLAS 0.3.21 exports LAPACK's Fortran symbols
// (sgetrf_, dpotrf_, ...) next to its BLAS, and it is opened already (Note [BLAS
// loading] in blas.h), so LAPACK costs no second library. The symbols are looked up
// with dlsym after blas.cpp has opened OpenBLAS (so OPENBLAS_CORETYPE is set first).
//
// Conventions: every matrix is column-major (Fortran) with leading dimension ld >= 1;
// integers are 32-bit (LP64 LAPACK); each call returns LAPACK's info (0: success,
// > 0: the routine's own failure, e.g. a zero pivot). Routines needing workspace
// query and allocate it themselves. Each call runs on the calling thread
// (OpenBLAS is kept single-threaded), so kernels split batches over OpenMP threads.
#pragma once
#include <cstdint>

namespace ember::cpu::lapack {

// Whether the routines were found; kernels raise a clear error when not.
bool available();
// Raises ember::Error naming `op` when LAPACK is not available.
void require(const char* op);

// LU with partial pivoting: A[m,n] = P L U; ipiv (1-based) of min(m, n) entries.
template <typename T> int getrf(int m, int n, T* a, int lda, int* ipiv);
// Cholesky: A = L L^T (uplo 'L') or U^T U ('U'), in the named triangle of a.
template <typename T> int potrf(char uplo, int n, T* a, int lda);
// B = alpha * op(A)^{-1} B (side 'L') or B op(A)^{-1} (side 'R'), A triangular (BLAS trsm).
template <typename T>
void trsm(char side, char uplo, char transa, char diag, int m, int n, T alpha, const T* a, int lda, T* b,
          int ldb);
// Householder QR: R in the upper triangle, the reflectors below it, tau[min(m, n)].
template <typename T> int geqrf(int m, int n, T* a, int lda, T* tau);
// The first n columns of Q = H(1)...H(k) from geqrf's reflectors (m >= n >= k).
template <typename T> int orgqr(int m, int n, int k, T* a, int lda, const T* tau);
// Eigen-decomposition of a symmetric matrix (divide and conquer): w ascending, the
// eigenvectors in the columns of a (jobz 'V') or a destroyed (jobz 'N').
template <typename T> int syevd(char jobz, char uplo, int n, T* a, int lda, T* w);
// SVD (divide and conquer): jobz 'A' (U[m,m], VT[n,n]), 'S' (U[m,k], VT[k,n]) or 'N'.
template <typename T>
int gesdd(char jobz, int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt, int ldvt);

}  // namespace ember::cpu::lapack
