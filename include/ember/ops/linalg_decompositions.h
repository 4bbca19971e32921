// Dense linear algebra over LAPACK, with torch.linalg's names, arguments, output
// conventions and errors: LU, Cholesky, QR, symmetric eigen-decomposition, SVD (the
// primitives: one schema row each, lib/ops/linalg_decompositions.cpp, kernels in
// lib/cpu/lapack_kernels.cpp), and the solvers, inverse and determinants written from
// them (lib/ops/linalg_solve.cpp). Inputs: float32 or float64 batches of matrices
// [..., m, n]; every function is differentiable where PyTorch's is (the derivative rows
// are in lib/autograd/derivatives/linalg_decompositions.cpp). CUDA tensors are computed
// on the host (copied to the CPU and back): there are no cuSOLVER kernels yet.
// docs/linalg.md lists the Python functions built on these.
#pragma once
#include <string>
#include <tuple>

#include "ember/error.h"
#include "ember/tensor.h"

namespace ember {

// A matrix the algorithm cannot handle (singular, not positive-definite, no
// convergence): Python's ember.linalg.LinAlgError, a RuntimeError (torch.linalg.LinAlgError).
class LinAlgError : public Error {
 public:
  using Error::Error;
};

// ---- primitives (one schema row each) -------------------------------------------------
// LU with partial pivoting: (LU, pivots, info); pivots are 1-based int32 (LAPACK's), info
// int32 per matrix (i > 0: U[i-1, i-1] is exactly zero). check_errors raises LinAlgError
// for such a matrix. pivot=false is not supported on the CPU (as in PyTorch).
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot = true,
                                                       bool check_errors = false);
Tensor linalg_det(const Tensor& A);
// X with A @ X = B (left) or X @ A = B; only A's upper (or lower) triangle is read.
// Batch dims broadcast.
Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true,
                               bool unitriangular = false);
// (L, info): A = L L^T, or A = U^T U with upper (only that triangle of A is read).
std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, bool upper = false, bool check_errors = false);
// (Q, R); mode "reduced" (Q [m, k], R [k, n]), "complete" (Q [m, m], R [m, n]), "r" (Q empty).
std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, const std::string& mode = "reduced");
// (eigenvalues ascending, eigenvectors in columns) of symmetric A; UPLO "L" or "U".
std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& A, const std::string& UPLO = "L");
// (U, S, Vh), S descending; U and Vh are empty when not compute_uv.
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices = true, bool compute_uv = true);
// LAPACK's geqrf: (a, tau), not differentiable (as in PyTorch).
std::tuple<Tensor, Tensor> geqrf(const Tensor& A);

// ---- composites (lib/ops/linalg_solve.cpp) ----------------------------------------------
// (LU, pivots); as PyTorch's, it raises LinAlgError for an exactly singular matrix.
std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot = true);
// The 0-based row permutation [..., m] (int64) that LAPACK's pivots [..., k] stand for:
// (P^T A)[i] = A[perm[i]].
Tensor lu_pivots_to_permutation(const Tensor& pivots, int64_t m);
// X with A X = B from A's LU factors (left; adjoint: A^T X = B), or X A = B.
Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true,
                       bool adjoint = false);
// (X, info): B is a vector when B.dim() == 1 or B's shape is A's without the last dim.
std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, bool left = true,
                                           bool check_errors = false);
Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left = true);  // LinAlgError if singular
std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors = false);
Tensor linalg_inv(const Tensor& A);  // LinAlgError if singular
// (sign, logabsdet); a singular matrix gives (0, -inf).
std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A);
Tensor linalg_cholesky(const Tensor& A, bool upper = false);  // LinAlgError if not positive-definite
// torch.det, torch.logdet (nan for a negative determinant), torch.inverse.
Tensor det(const Tensor& A);
Tensor logdet(const Tensor& A);
Tensor inverse(const Tensor& A);

}  // namespace ember
