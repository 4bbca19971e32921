// The solvers, inverse and determinants written from the LAPACK primitives
// (include/ember/ops/linalg_decompositions.h): lu_factor, lu_solve, solve(_ex),
// inv(_ex), slogdet, cholesky, det, logdet, inverse. Composites of dispatched ops, so
// autograd (through the LU's and the triangular solve's derivative rows), tracing and
// CUDA (each primitive's host round trip) come with them.
#include <algorithm>
#include <limits>

#include "dispatch/dispatcher.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg_decompositions.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"
#include "ops/linalg_checks.h"

namespace ember {

using namespace linalg_checks;

namespace {

IntList with_matrix(const DimVector& batch, int64_t rows, int64_t cols) {
  IntList s(batch.begin(), batch.end());
  s.push_back(rows);
  s.push_back(cols);
  return s;
}

DimVector batch_of(const Tensor& t, int64_t matrix_dims) {
  return DimVector(t.sizes().begin(), t.sizes().end() - matrix_dims);
}

// The permutation built on the host: one pass over the pivots.
Tensor permutation_on_host(const Tensor& pivots, int64_t m) {
  Tensor piv = pivots.contiguous();
  int64_t k = piv.size(-1), batch = 1;
  DimVector out_sizes = batch_of(piv, 1);
  for (int64_t s : out_sizes) batch *= s;
  out_sizes.push_back(m);
  Tensor perm = empty(out_sizes, TensorOptions(kInt64));
  const int* p = static_cast<const int*>(piv.data_ptr());
  int64_t* out = static_cast<int64_t*>(perm.data_ptr());
  for (int64_t b = 0; b < batch && m > 0; ++b) {
    int64_t* row = out + b * m;
    for (int64_t i = 0; i < m; ++i) row[i] = i;
    for (int64_t i = 0; i < k; ++i) {
      int64_t j = p[b * k + i] - 1;
      EMBER_CHECK(j >= 0 && j < m, "lu_unpack: pivots must be in [1, ", m, "], got ", j + 1);
      std::swap(row[i], row[j]);
    }
  }
  return perm;
}

}  // namespace

Tensor lu_pivots_to_permutation(const Tensor& pivots, int64_t m) {
  EMBER_CHECK(pivots.dim() >= 1 && pivots.dtype() == kInt32, "lu_unpack: pivots must be an int32 tensor of "
              "at least 1 dimension, got ", dtype_name(pivots.dtype()), " of shape ", shape_str(pivots.sizes()));
  EMBER_CHECK(pivots.size(-1) <= m, "lu_unpack: expected at most ", m, " pivots, got ", pivots.size(-1));
  if (pivots.is_cpu() && !dispatch_state().tracing) return permutation_on_host(pivots, m);
  // Traced or on a device: the swaps as ops, so a replayed trace permutes its own pivots.
  DimVector batch = batch_of(pivots, 1);
  IntList shape(batch.begin(), batch.end());
  shape.push_back(m);
  Tensor perm = expand(arange(m, TensorOptions(kInt64).device(pivots.device())), shape).contiguous();
  Tensor piv = sub(pivots.to(kInt64), Scalar(1));
  for (int64_t i = 0; i < pivots.size(-1); ++i) {
    Tensor j = narrow(piv, -1, i, 1);
    Tensor at_i = narrow(perm, -1, i, 1).clone(), at_j = gather(perm, -1, j);
    perm = scatter(perm, -1, j, at_i);
    perm = scatter(perm, -1, full_like(j, Scalar(i)), at_j);
  }
  return perm;
}

std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot) {
  auto [lu, pivots, info] = linalg_lu_factor_ex(A, pivot, false);
  auto [b, i] = first_failure(info);
  if (b >= 0) throw_zero_pivot("linalg.lu_factor", info, b, i);
  return {lu, pivots};
}

Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  const char* api = "linalg.lu_solve";
  check_square(api, LU, "LU");
  check_matrix(api, B, "B");
  check_dtype(api, LU);
  EMBER_CHECK(LU.dtype() == B.dtype(), api, ": Expected LU and B to have the same dtype, but found LU of type ",
              scalar_type_name(LU.dtype()), " and B of type ", scalar_type_name(B.dtype()), " instead");
  EMBER_CHECK(pivots.dtype() == kInt32, api, ": pivots should be a Tensor of scalar type int32, got ",
              scalar_type_name(pivots.dtype()));
  int64_t n = LU.size(-1);
  DimVector lu_batch = batch_of(LU, 2);
  EMBER_CHECK(pivots.dim() == LU.dim() - 1 && batch_of(pivots, 1) == lu_batch && pivots.size(-1) == n, api,
              ": Expected the pivots to have shape ", shape_str(batch_of(LU, 1)), ", got ",
              shape_str(pivots.sizes()));
  if (!left)  // X A = B  <=>  A^T X^T = B^T
    return linalg_lu_solve(LU, pivots, B.mT(), true, !adjoint).mT();
  EMBER_CHECK(B.size(-2) == n, api, ": Incompatible shapes of A and B for the equation AX = B (", n, "x", n,
              " and ", B.size(-2), "x", B.size(-1), ")");
  DimVector batch = broadcast_shapes(lu_batch, batch_of(B, 2), api);
  int64_t k = B.size(-1);
  Tensor lu = expand(LU, with_matrix(batch, n, n)), rhs = expand(B, with_matrix(batch, n, k));
  IntList piv_shape(batch.begin(), batch.end());
  piv_shape.push_back(n);
  Tensor perm = lu_pivots_to_permutation(expand(pivots, piv_shape), n);
  Tensor rows = expand(unsqueeze(perm, -1), with_matrix(batch, n, k));
  if (!adjoint) {  // A = P L U: X = U^{-1} L^{-1} P^T B, (P^T B)[i] = B[perm[i]]
    Tensor y = linalg_solve_triangular(lu, gather(rhs, -2, rows), false, true, true);
    return linalg_solve_triangular(lu, y, true);
  }
  // A^T = U^T L^T P^T: X = P L^{-T} U^{-T} B, (P Z)[perm[i]] = Z[i]
  Tensor y = linalg_solve_triangular(lu.mT(), rhs, false);
  Tensor z = linalg_solve_triangular(lu.mT(), y, true, true, true);
  return scatter(zeros_like(z), -2, rows, z);
}

std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  const char* api = "linalg.solve";
  check_square(api, A);
  check_dtype(api, A);
  EMBER_CHECK(B.dim() >= 1, api, ": The input tensor B must have at least 1 dimensions.");
  EMBER_CHECK(A.dtype() == B.dtype(), api, ": Expected A and B to have the same dtype, but found A of type ",
              scalar_type_name(A.dtype()), " and B of type ", scalar_type_name(B.dtype()), " instead");
  // B is a vector (a batch of them) when it is 1-d or A's shape without its last dim.
  bool vector = B.dim() == 1 || (B.dim() == A.dim() - 1 && batch_of(A, 1) == B.sizes());
  Tensor rhs = vector ? unsqueeze(B, left ? -1 : -2) : B;
  int64_t n = A.size(-1), shared = left ? rhs.size(-2) : rhs.size(-1);
  EMBER_CHECK(shared == n, api, ": Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B",
              " (", n, "x", n, " and ", rhs.size(-2), "x", rhs.size(-1), ")");
  auto [lu, pivots, info] = linalg_lu_factor_ex(A);
  if (check_errors) {
    auto [b, i] = first_failure(info);
    if (b >= 0)
      throw LinAlgError(detail::str("torch.linalg.solve: ", batch_prefix(info, b),
                                    "The solver failed because the input matrix is singular."));
  }
  Tensor x = linalg_lu_solve(lu, pivots, rhs, left);
  return {vector ? squeeze(x, left ? -1 : -2) : x, info};
}

Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left) {
  return std::get<0>(linalg_solve_ex(A, B, left, true));
}

std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors) {
  check_input("linalg.inv", A, true);
  int64_t n = A.size(-1);
  auto [lu, pivots, info] = linalg_lu_factor_ex(A);
  if (check_errors) {
    auto [b, i] = first_failure(info);
    if (b >= 0)
      throw LinAlgError(detail::str("linalg.inv: ", batch_prefix(info, b), "The diagonal element ", i,
                                    " is zero, the inversion could not be completed because the input matrix is "
                                    "singular."));
  }
  Tensor identity = expand(eye(n, std::nullopt, TensorOptions(A.dtype()).device(A.device())),
                           IntList(A.sizes().begin(), A.sizes().end()));
  return {linalg_lu_solve(lu, pivots, identity), info};
}

Tensor linalg_inv(const Tensor& A) { return std::get<0>(linalg_inv_ex(A, true)); }

std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A) {
  check_input("linalg.slogdet", A, true);
  int64_t n = A.size(-1);
  auto [lu, pivots, info] = linalg_lu_factor_ex(A);
  Tensor d = diagonal(lu, 0, -2, -1);
  // Each pivot that moved a row flips the sign.
  Tensor unmoved = arange(1, n + 1, 1, TensorOptions(kInt32).device(A.device()));
  Tensor swaps = sum(ne(pivots, unmoved), IntList{-1}).to(kInt64);
  Tensor perm_sign = (Scalar(1) - mul(remainder(swaps, Scalar(2)), Scalar(2))).to(A.dtype());
  Tensor sign_ = mul(perm_sign, prod(sign(d), IntList{-1}));
  Tensor logabsdet = sum(log(abs(d)), IntList{-1});
  return {sign_, logabsdet};
}

Tensor linalg_cholesky(const Tensor& A, bool upper) { return std::get<0>(linalg_cholesky_ex(A, upper, true)); }

Tensor det(const Tensor& A) { return linalg_det(A); }

Tensor logdet(const Tensor& A) {
  auto [s, logabsdet] = linalg_slogdet(A);
  // A negative determinant has no real logarithm.
  return where(eq(s, Scalar(-1)), Scalar(std::numeric_limits<double>::quiet_NaN()), logabsdet);
}

Tensor inverse(const Tensor& A) { return linalg_inv(A); }

}  // namespace ember
