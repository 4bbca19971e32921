// The order statistics and linalg composites from C++ (lib/ops/reduce_order.cpp,
// scan_composite.cpp, search_count.cpp, einsum.cpp, linalg_products.cpp): the same
// names and results as from Python, checked on small hand-computed cases.
#include <catch2/catch.hpp>

#include "ember/ember.h"

using namespace ember;

namespace {

std::vector<double> values(const Tensor& t) {
  Tensor c = t.detach().to(kFloat64).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

}  // namespace

TEST_CASE("order statistics from C++", "[ops][statistics]") {
  Tensor x = tensor<double>({3, 1, 3, 1, 2});
  CHECK(median(x).item<double>() == 2);
  auto [mv, mi] = mode(x);
  CHECK(mv.item<double>() == 1);
  CHECK(mi.item<int64_t>() == 3);  // PyTorch's CPU index: the last occurrence
  auto [kv, ki] = kthvalue(x, 4);
  CHECK(kv.item<double>() == 3);
  CHECK(values(quantile(x, 0.5)) == std::vector<double>{2});
  auto [cv, ci] = cummax(x, 0);
  CHECK(values(cv) == std::vector<double>{3, 3, 3, 3, 3});
  CHECK(values(ci) == std::vector<double>{0, 0, 2, 2, 2});
  CHECK_THROWS_AS(kthvalue(x, 6), Error);
  CHECK_THROWS_AS(median(zeros({0, 3}), 0), IndexError);
}

TEST_CASE("searching and closeness from C++", "[ops][statistics]") {
  Tensor seq = tensor<double>({1, 3, 5});
  CHECK(values(searchsorted(seq, tensor<double>({0, 3, 6}))) == std::vector<double>{0, 1, 3});
  CHECK(values(bucketize(tensor<double>({3}), seq, false, true)) == std::vector<double>{2});
  CHECK(values(bincount(tensor<int64_t>({0, 2, 2}))) == std::vector<double>{1, 0, 2});
  CHECK(allclose(seq, seq + Scalar(1e-9)));
  CHECK_FALSE(equal(seq, seq.narrow(0, 0, 2)));
}

TEST_CASE("einsum and products from C++", "[ops][linalg]") {
  Tensor a = arange(Scalar(6), kFloat64).reshape({2, 3});
  Tensor b = arange(Scalar(6), kFloat64).reshape({3, 2});
  CHECK(values(einsum("ij,jk->ik", {a, b})) == values(mm(a, b)));
  CHECK(einsum("ii", {mm(a, b)}).item<double>() == trace(mm(a, b)).item<double>());
  CHECK(values(tensordot(a, b, 1)) == values(mm(a, b)));
  CHECK(values(matrix_power(mm(a, b), 2)) == values(mm(mm(a, b), mm(a, b))));
  CHECK(values(linalg::multi_dot({a, b, a})) == values(mm(mm(a, b), a)));
  CHECK_THROWS_AS(einsum("ij->k", {a}), Error);
}
