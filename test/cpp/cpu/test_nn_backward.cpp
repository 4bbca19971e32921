// The nn backward primitives from C++ (no Python): values worked out by hand
// and properties every gradient of these ops has.
#include <catch2/catch.hpp>

#include <cmath>

#include "ember/ember.h"

using namespace ember;

namespace {

std::vector<double> values(const Tensor& t) {
  Tensor c = t.to(kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

Tensor doubles(std::vector<double> v, IntList sizes) { return from_vector<double>(v, sizes); }
Tensor longs(std::vector<int64_t> v, IntList sizes) { return from_vector<int64_t>(v, sizes); }

}  // namespace

TEST_CASE("layer_norm_backward: rows of dx sum to zero, dw and db are column sums") {
  Tensor x = doubles({1, 2, 3, 10, 20, 40}, {2, 3});
  Tensor w = doubles({1, 2, 3}, {3});
  Tensor g = doubles({0.5, -1, 2, 1, 1, 1}, {2, 3});
  auto [y, mean, rstd] = native_layer_norm(x, {3}, w, {}, 0.0);
  auto [dx, dw, db] = native_layer_norm_backward(g, x, {3}, mean, rstd, w, {});
  auto d = values(dx);
  CHECK(d[0] + d[1] + d[2] == Approx(0.0).margin(1e-12));
  CHECK(d[3] + d[4] + d[5] == Approx(0.0).margin(1e-12));
  CHECK(values(db) == std::vector<double>{1.5, 0, 3});
  // x_hat of row 0 is (-1, 0, 1) * sqrt(3/2): dw[0] = 0.5 * -sqrt(1.5) + 1 * x_hat[1, 0]
  const double xh10 = (10 - 70.0 / 3) / std::sqrt((std::pow(10 - 70.0 / 3, 2) + std::pow(20 - 70.0 / 3, 2) +
                                                   std::pow(40 - 70.0 / 3, 2)) / 3);
  CHECK(values(dw)[0] == Approx(-0.5 * std::sqrt(1.5) + xh10));
  auto [dx2, dw2, db2] = native_layer_norm_backward(g, x, {3}, mean, rstd, w, {}, {true, false, false});
  CHECK(!dw2.defined());
  CHECK(!db2.defined());
  CHECK(values(dx2) == d);
}

TEST_CASE("batch_norm_backward in eval mode scales by weight / sqrt(running_var + eps)") {
  Tensor x = doubles({1, 2, 3, 4}, {2, 2});
  Tensor rm = doubles({1, 1}, {2}), rv = doubles({3, 15}, {2}), w = doubles({2, 4}, {2});
  Tensor g = doubles({1, 1, 1, 1}, {2, 2});
  auto [dx, dw, db] = native_batch_norm_backward(g, x, w, rm, rv, {}, {}, false, 1.0);
  CHECK(values(dx) == std::vector<double>{1, 1, 1, 1});  // 2 / sqrt(4), 4 / sqrt(16)
  CHECK(values(db) == std::vector<double>{2, 2});
  CHECK(values(dw)[0] == Approx((0 + 2) / 2.0));  // sum of (x - rm) / sqrt(rv + eps)
  CHECK_THROWS_AS(native_batch_norm_backward(g, x, w, {}, {}, {}, {}, false, 1.0), Error);
}

TEST_CASE("cross_entropy_backward is (softmax - one_hot) / N, and nll_loss_backward its one-hot part") {
  Tensor logits = doubles({0, 0, 0, std::log(3.0)}, {2, 2});
  Tensor t = longs({1, 1}, {2});
  Tensor one = full({}, 1.0, TensorOptions(kFloat64));
  auto d = values(cross_entropy_backward(one, logits, t, {}, 1));
  CHECK(d[0] == Approx(0.25));         // (1/2 - 0) / 2
  CHECK(d[1] == Approx(-0.25));        // (1/2 - 1) / 2
  CHECK(d[2] == Approx(0.125));        // (1/4 - 0) / 2
  CHECK(d[3] == Approx(-0.125));       // (3/4 - 1) / 2
  auto n = values(nll_loss_backward(one, logits, longs({0, -100}, {2}), {}, 2, -100));
  CHECK(n == std::vector<double>{-1, 0, 0, 0});
  CHECK_THROWS_AS(cross_entropy_backward(one, logits, longs({0, 2}, {2}), {}, 1), IndexError);
}

TEST_CASE("embedding_dense_backward accumulates duplicates and leaves padding_idx zero") {
  Tensor g = doubles({1, 2, 10, 20, 100, 200, 5, 5}, {4, 2});
  Tensor idx = longs({2, 0, 2, 1}, {4});
  auto gw = values(embedding_dense_backward(g, idx, 3, 1));
  CHECK(gw == std::vector<double>{10, 20, 0, 0, 101, 202});
  auto by_freq = values(embedding_dense_backward(g, idx, 3, -1, true));
  CHECK(by_freq == std::vector<double>{10, 20, 5, 5, 50.5, 101});
}

TEST_CASE("pad_backward folds reflected and replicated borders back") {
  // reflect [a b c] by (2, 1): [c b a b c b] -> a: g2, b: g1 + g3 + g5, c: g0 + g4
  Tensor g = doubles({1, 2, 4, 8, 16, 32}, {1, 6});
  CHECK(values(pad_backward(g, {1, 3}, {2, 1}, "reflect")) == std::vector<double>{4, 42, 17});
  // replicate: [a a a b c c]
  CHECK(values(pad_backward(g, {1, 3}, {2, 1}, "replicate")) == std::vector<double>{7, 8, 48});
  // circular: [b c a b c a]
  CHECK(values(pad_backward(g, {1, 3}, {2, 1}, "circular")) == std::vector<double>{36, 9, 18});
}
