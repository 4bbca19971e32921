// The LAPACK-backed linear algebra from C++ (include/ember/ops/linalg_decompositions.h):
// the same functions as ember.linalg's, checked on small hand-computed cases, their
// errors, and a gradient through the determinant.
#include <catch2/catch.hpp>

#include <cmath>

#include "ember/ember.h"

using namespace ember;

namespace {

std::vector<double> values(const Tensor& t) {
  Tensor c = t.detach().to(kFloat64).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

bool near(const std::vector<double>& a, const std::vector<double>& b, double tol = 1e-10) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::abs(a[i] - b[i]) > tol) return false;
  return true;
}

Tensor matrix(const std::vector<double>& v, int64_t n) {
  return from_vector<double>(v, {static_cast<int64_t>(v.size()) / n, n});
}

}  // namespace

TEST_CASE("determinant, inverse and solve from C++", "[ops][linalg]") {
  Tensor a = matrix({4, 3, 6, 3}, 2);  // det = 12 - 18 = -6
  CHECK(near(values(det(a)), {-6}));
  CHECK(near(values(linalg_det(a)), {-6}));
  auto [sign, logabs] = linalg_slogdet(a);
  CHECK(near(values(sign), {-1}));
  CHECK(near(values(logabs), {std::log(6.0)}));
  CHECK(std::isnan(values(logdet(a))[0]));
  CHECK(near(values(linalg_inv(a)), {-0.5, 0.5, 1.0, -2.0 / 3.0}));
  CHECK(near(values(inverse(a)), values(linalg_inv(a))));
  Tensor x = linalg_solve(a, tensor<double>({7, 9}));  // 4x + 3y = 7, 6x + 3y = 9
  CHECK(near(values(x), {1, 1}));
  auto [lu, pivots] = linalg_lu_factor(a);
  CHECK(values(pivots) == std::vector<double>{2, 2});
  CHECK(near(values(linalg_lu_solve(lu, pivots, matrix({7, 9}, 1))), {1, 1}));
}

TEST_CASE("Cholesky, QR, eigh and SVD from C++", "[ops][linalg]") {
  Tensor spd = matrix({4, 2, 2, 5}, 2);
  Tensor l = linalg_cholesky(spd);
  CHECK(near(values(l), {2, 0, 1, 2}));
  CHECK(near(values(linalg_solve_triangular(l, matrix({2, 5}, 1), false)), {1, 2}));
  auto [q, r] = linalg_qr(matrix({3, 1, 4, 2}, 2));
  CHECK(near(values(matmul(q, r)), {3, 1, 4, 2}));
  CHECK(near(values(r), {-5, -2.2, 0, 0.4}));
  auto [w, v] = linalg_eigh(matrix({2, 1, 1, 2}, 2));
  CHECK(near(values(w), {1, 3}));
  auto [u, s, vh] = linalg_svd(matrix({3, 0, 0, -2}, 2));
  CHECK(near(values(s), {3, 2}));
  CHECK(near(values(matmul(u * s.unsqueeze(0), vh)), {3, 0, 0, -2}));
  auto [a_, tau] = geqrf(matrix({3, 1, 4, 2}, 2));
  CHECK(tau.size(0) == 2);
}

TEST_CASE("linear algebra errors from C++", "[ops][linalg]") {
  Tensor singular = matrix({1, 2, 2, 4}, 2);
  CHECK(values(det(singular)) == std::vector<double>{0});
  CHECK_THROWS_AS(linalg_inv(singular), LinAlgError);
  CHECK_THROWS_AS(linalg_solve(singular, tensor<double>({1, 1})), LinAlgError);
  CHECK_THROWS_AS(linalg_cholesky(matrix({1, 2, 2, 1}, 2)), LinAlgError);
  CHECK_THROWS_AS(det(ones({2, 3})), Error);
  CHECK_THROWS_AS(det(ones({2, 2}, TensorOptions(kInt64))), NotImplementedError);
  CHECK_THROWS_AS(linalg_qr(ones({2, 2}), "bad"), Error);
  auto [l, info] = linalg_cholesky_ex(matrix({1, 2, 2, 1}, 2));
  CHECK(values(info) == std::vector<double>{2});
}

TEST_CASE("the determinant's gradient from C++", "[ops][linalg][autograd]") {
  Tensor a = matrix({4, 3, 6, 3}, 2).requires_grad_();
  det(a).backward();
  // d det / dA = det * A^{-T}
  CHECK(near(values(a.grad()), {3, -6, -3, 4}));
}
