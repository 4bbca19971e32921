// Matrix products, convolutions and pooling from C++: the BLAS routes against
// the reference loops, and the ops against direct loops.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "cpu/blas.h"
#include "ember/ember.h"

using namespace ember;

namespace {

template <typename T>
std::vector<T> random_values(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(dist(gen));
  return v;
}

Tensor random_tensor(const IntList& sizes, unsigned seed, DType dtype = kFloat32) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return from_vector(random_values<double>(static_cast<size_t>(n), seed), sizes, kFloat64).to(dtype);
}

double at(const Tensor& t, const IntList& idx) {
  Tensor v = t;
  for (int64_t i : idx) v = v.select(0, i);
  return v.item().to_double();
}

// Every gemm route (sizes around the thresholds, all transposes) against plain loops.
template <typename T>
void check_gemm_routes(double tol) {
  for (auto [m, n, k] : std::vector<std::array<int64_t, 3>>{
           {1, 1, 1}, {7, 5, 3}, {33, 17, 65}, {64, 64, 64}, {130, 150, 170}, {1, 300, 200}, {257, 1, 90}}) {
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb) {
        auto a = random_values<T>(m * k, 1), b = random_values<T>(k * n, 2);
        std::vector<T> c(m * n, T(0.5)), ref(c);
        int64_t lda = ta ? m : k, ldb = tb ? k : n;
        cpu::blas::gemm(ta, tb, m, n, k, T(1.5), a.data(), lda, b.data(), ldb, T(2), c.data(), n);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double acc = 0;
            for (int64_t p = 0; p < k; ++p)
              acc += double(ta ? a[p * lda + i] : a[i * lda + p]) * double(tb ? b[j * ldb + p] : b[p * ldb + j]);
            ref[i * n + j] = T(1.5 * acc + 2.0 * ref[i * n + j]);
          }
        for (size_t i = 0; i < c.size(); ++i) REQUIRE(c[i] == Approx(ref[i]).margin(tol));
      }
  }
}

}  // namespace

TEST_CASE("blas gemm matches the reference loops on every route") {
  check_gemm_routes<float>(1e-3);
  check_gemm_routes<double>(1e-10);
  INFO(cpu::blas::describe());
  CHECK(cpu::blas::describe().find("float32 gemm") != std::string::npos);
}

TEST_CASE("blas gemm with k = 0 or beta = 0 ignores what C held") {
  std::vector<float> c(6, NAN);
  float a = 1, b = 1;
  cpu::blas::gemm(false, false, 2, 3, 0, 1.0f, &a, 1, &b, 3, 0.0f, c.data(), 3);
  for (float v : c) CHECK(v == 0.0f);
}

TEST_CASE("matmul broadcasts batch dims and handles vectors") {
  Tensor a = random_tensor({2, 1, 3, 4}, 3), b = random_tensor({5, 4, 2}, 4);
  Tensor c = matmul(a, b);
  REQUIRE(c.sizes() == DimVector{2, 5, 3, 2});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 5; ++j)
      for (int64_t r = 0; r < 3; ++r)
        for (int64_t s = 0; s < 2; ++s) {
          double acc = 0;
          for (int64_t p = 0; p < 4; ++p) acc += at(a, {i, 0, r, p}) * at(b, {j, p, s});
          CHECK(at(c, {i, j, r, s}) == Approx(acc).margin(1e-5));
        }
  Tensor v = random_tensor({4}, 5);
  CHECK(matmul(v, b).sizes() == DimVector{5, 2});
  CHECK(matmul(a, v).sizes() == DimVector{2, 1, 3});
  CHECK(matmul(v, v).dim() == 0);
  CHECK(a.matmul(b).sizes() == c.sizes());
}

TEST_CASE("mm of transposed views equals mm of copies, in every dtype") {
  for (DType t : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt64, kInt32}) {
    Tensor a = random_tensor({5, 6}, 6, kFloat64).to(t), b = random_tensor({7, 5}, 7, kFloat64).to(t);
    if (!is_floating(t)) {
      a = full({5, 6}, 3, t);
      b = arange(35, TensorOptions(t)).reshape({7, 5});
    }
    Tensor x = mm(a.t(), b.t()), y = mm(a.t().contiguous(), b.t().contiguous());
    REQUIRE(x.dtype() == t);
    for (int64_t i = 0; i < 6; ++i)
      for (int64_t j = 0; j < 7; ++j) CHECK(at(x, {i, j}) == Approx(at(y, {i, j})).epsilon(1e-2));
  }
}

TEST_CASE("addmm and linear") {
  Tensor bias = random_tensor({3}, 8), a = random_tensor({4, 5}, 9), w = random_tensor({3, 5}, 10);
  Tensor y = linear(a, w, bias), z = addmm(bias, a, w.t(), 2.0, 0.5);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < 5; ++p) acc += at(a, {i, p}) * at(w, {j, p});
      CHECK(at(y, {i, j}) == Approx(acc + at(bias, {j})).margin(1e-5));
      CHECK(at(z, {i, j}) == Approx(0.5 * acc + 2.0 * at(bias, {j})).margin(1e-5));
    }
}

TEST_CASE("bad products raise errors that name the op and the shapes") {
  CHECK_THROWS_WITH(mm(zeros({2, 3}), zeros({4, 5})),
                    Catch::Contains("mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"));
  CHECK_THROWS_WITH(matmul(zeros({2, 3}), zeros({3, 4}, kFloat64)),
                    Catch::Contains("expected m1 and m2 to have the same dtype, but got: float != double"));
  CHECK_THROWS_AS(matmul(zeros({2, 2}, kBool), zeros({2, 2}, kBool)), NotImplementedError);
  CHECK_THROWS_AS(conv2d(zeros({1, 2, 8, 8}), zeros({4, 3, 3, 3})), Error);
}

TEST_CASE("conv2d matches a direct loop; conv_transpose2d is its adjoint") {
  Tensor x = random_tensor({2, 4, 7, 6}, 11), w = random_tensor({6, 2, 3, 3}, 12), b = random_tensor({6}, 13);
  Tensor y = conv2d(x, w, b, {2, 1}, {1}, {1, 2}, 2);
  REQUIRE(y.sizes() == DimVector{2, 6, 4, 4});
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t o = 0; o < 6; ++o)
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < 4; ++j) {
          double acc = at(b, {o});
          int64_t g = o / 3;
          for (int64_t c = 0; c < 2; ++c)
            for (int64_t p = 0; p < 3; ++p)
              for (int64_t q = 0; q < 3; ++q) {
                int64_t ih = i * 2 - 1 + p, iw = j - 1 + 2 * q;
                if (ih >= 0 && ih < 7 && iw >= 0 && iw < 6)
                  acc += at(x, {n, g * 2 + c, ih, iw}) * at(w, {o, c, p, q});
              }
          CHECK(at(y, {n, o, i, j}) == Approx(acc).margin(1e-4));
        }
  // <conv2d(x, w), g> == <x, conv_transpose2d(g, w)>
  Tensor x64 = x.to(kFloat64), w64 = w.to(kFloat64);
  Tensor y64 = conv2d(x64, w64, {}, {2, 1}, {1}, {1, 2}, 2);
  Tensor g = random_tensor({2, 6, 4, 4}, 14, kFloat64);
  Tensor xt = conv_transpose2d(g, w64, {}, {2, 1}, {1}, {0}, 2, {1, 2});
  REQUIRE(xt.sizes() == DimVector{2, 4, 7, 6});
  double lhs = 0, rhs = 0;
  for (int64_t i = 0; i < y64.numel(); ++i) lhs += y64.data_ptr<double>()[i] * g.data_ptr<double>()[i];
  for (int64_t i = 0; i < x64.numel(); ++i) rhs += x64.data_ptr<double>()[i] * xt.data_ptr<double>()[i];
  CHECK(lhs == Approx(rhs).epsilon(1e-9));
}

TEST_CASE("conv 'same' padding and unbatched inputs") {
  Tensor x = random_tensor({3, 9, 8}, 15), w = random_tensor({5, 3, 4, 3}, 16);
  CHECK(conv2d(x, w, {}, {1}, "same").sizes() == DimVector{5, 9, 8});
  CHECK(conv1d(random_tensor({2, 3, 10}, 17), random_tensor({4, 3, 3}, 18), {}, {2}, {1}).sizes() ==
        DimVector{2, 4, 5});
}

TEST_CASE("pooling") {
  Tensor x = arange(16, TensorOptions(kFloat32)).reshape({1, 1, 4, 4});
  auto [v, i] = max_pool2d_with_indices(x, {2});
  REQUIRE(v.sizes() == DimVector{1, 1, 2, 2});
  CHECK(at(v, {0, 0, 1, 1}) == 15.0);
  CHECK(at(i, {0, 0, 1, 0}) == 13.0);
  CHECK(at(avg_pool2d(x, {2}), {0, 0, 0, 0}) == 2.5);
  CHECK(at(avg_pool2d(x, {3}, {2}, {1}, false, false), {0, 0, 0, 0}) == Approx((0 + 1 + 4 + 5) / 4.0));
  CHECK(at(adaptive_avg_pool2d(x, IntList{1}), {0, 0, 0, 0}) == 7.5);
  CHECK(max_pool2d(x.select(0, 0), {2}).sizes() == DimVector{1, 2, 2});
}
