// Free functions of the product and linear algebra composites (ember::einsum,
// ember::tensordot, ember::cdist, ...) and of ember::linalg (vector_norm, matrix_norm,
// multi_dot, ...), with PyTorch's names, arguments and rank rules. All are written
// from other ops (permute, reshape, bmm, sum, mul), so they get autograd and tracing.
#pragma once
#include <optional>
#include <string>
#include <variant>

#include "ember/tensor.h"

namespace ember {

// ---- products (lib/ops/einsum.cpp, lib/ops/linalg_products.cpp) --------------------------
// torch.einsum: "ij,jk->ik", implicit output ("ij,jk"), "..." ellipsis, repeated indices
// on one operand (a diagonal); size-1 dims broadcast. Contracts pairwise, left to right.
Tensor einsum(const std::string& equation, const TensorList& operands);
// Contracts the last `dims` dims of a with the first `dims` of b.
Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims = 2);
// Contracts dims_a[i] of a with dims_b[i] of b.
Tensor tensordot(const Tensor& a, const Tensor& b, const IntList& dims_a, const IntList& dims_b);
Tensor kron(const Tensor& self, const Tensor& other);
Tensor trace(const Tensor& self);  // the sum of a matrix's diagonal
Tensor inner(const Tensor& self, const Tensor& other);  // over the last dims
Tensor vdot(const Tensor& self, const Tensor& other);   // 1-d dot product
// The cross product of 3-vectors along dim; dim nullopt: the first dim of size 3 (deprecated in torch).
Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim = std::nullopt);
// beta * self + alpha * (mat @ vec), and the outer product, batched and summed forms.
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
             const Scalar& alpha = 1);
Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
            const Scalar& alpha = 1);
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
               const Scalar& alpha = 1);
Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
              const Scalar& alpha = 1);
Tensor chain_matmul(const TensorList& matrices);
// Integer n >= 0 (a negative n needs a matrix inverse: not supported).
Tensor matrix_power(const Tensor& self, int64_t n);

// ---- differences, distances, statistics (lib/ops/linalg_misc.cpp) ------------------------
// n-th forward difference along dim, after joining prepend and append.
Tensor diff(const Tensor& self, int64_t n = 1, int64_t dim = -1, const Tensor& prepend = {},
            const Tensor& append = {});
Tensor dist(const Tensor& self, const Tensor& other, const Scalar& p = 2);
// p-norm distances between the rows of x1 [..., P, M] and x2 [..., R, M]: [..., P, R].
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2.0,
             std::optional<std::string> compute_mode = std::nullopt);
// Covariance of the rows (variables) of a [vars, obs] or [obs] tensor.
Tensor cov(const Tensor& self, int64_t correction = 1, const Tensor& fweights = {},
           const Tensor& aweights = {});
Tensor corrcoef(const Tensor& self);
// Trapezoid rule along dim, with sample points x (or spacing dx).
Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);

namespace linalg {
// ord: a number (inf, -inf and 0 included); dim empty: every element.
Tensor vector_norm(const Tensor& x, double ord = 2, const IntList& dim = {}, bool keepdim = false,
                   std::optional<DType> dtype = std::nullopt);
// ord: "fro", or inf, -inf, 1, -1 (max/min of the row/column absolute sums) over two dims.
Tensor matrix_norm(const Tensor& a, const std::string& ord = "fro", const IntList& dim = {-2, -1},
                   bool keepdim = false, std::optional<DType> dtype = std::nullopt);
Tensor matrix_norm(const Tensor& a, double ord, const IntList& dim = {-2, -1}, bool keepdim = false,
                   std::optional<DType> dtype = std::nullopt);
Tensor multi_dot(const TensorList& tensors);
Tensor cross(const Tensor& input, const Tensor& other, int64_t dim = -1);
Tensor vecdot(const Tensor& x, const Tensor& y, int64_t dim = -1);
}  // namespace linalg

}  // namespace ember
