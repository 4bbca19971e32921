// The nn group's ops from C++ (no Python): values worked out by hand.
#include <catch2/catch.hpp>

#include <cmath>

#include "ember/ember.h"

using namespace ember;

namespace {

std::vector<float> values(const Tensor& t) {
  Tensor c = t.to(kFloat32).contiguous();
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

Tensor floats(std::vector<float> v, IntList sizes) { return from_vector<float>(v, sizes); }
Tensor longs(std::vector<int64_t> v, IntList sizes) { return from_vector<int64_t>(v, sizes); }

}  // namespace

TEST_CASE("layer_norm normalizes each row and applies weight and bias") {
  Tensor x = floats({1, 2, 3, 10, 20, 30}, {2, 3});
  Tensor w = floats({1, 2, 1}, {3}), b = floats({0, 0, 5}, {3});
  auto y = values(layer_norm(x, {3}, w, b, 0.0));
  const float s = std::sqrt(1.5f);  // (x - mean) / std with std = sqrt(2/3)
  CHECK(y[0] == Approx(-s));
  CHECK(y[1] == Approx(0.0f).margin(1e-6));
  CHECK(y[2] == Approx(s + 5));
  CHECK(y[3] == Approx(-s));
  auto [out, mean, rstd] = native_layer_norm(x, {3}, {}, {}, 0.0);
  CHECK(mean.sizes() == DimVector{2, 1});
  CHECK(values(mean)[1] == Approx(20.0f));
}

TEST_CASE("batch_norm in training updates the running stats with the unbiased variance") {
  Tensor x = floats({1, 3, 3, 7}, {2, 2});  // channel 0: {1, 3}, channel 1: {3, 7}
  Tensor rm = zeros({2}), rv = ones({2});
  uint64_t v = rm.version();
  auto y = values(batch_norm(x, rm, rv, {}, {}, true, 0.5, 0.0));
  CHECK(y[0] == Approx(-1.0f));
  CHECK(y[3] == Approx(1.0f));
  CHECK(rm.version() > v);
  CHECK(values(rm) == std::vector<float>{1.0f, 2.5f});        // 0.5 * mean
  CHECK(values(rv)[0] == Approx(0.5f + 0.5f * 2.0f));          // unbiased var of {1, 3} = 2
  CHECK(values(rv)[1] == Approx(0.5f + 0.5f * 8.0f));          // unbiased var of {3, 7} = 8
  auto eval = values(batch_norm(x, rm, rv, {}, {}, false, 0.1, 0.0));
  CHECK(eval[0] == Approx((1 - 1.0f) / std::sqrt(1.5f)));
}

TEST_CASE("group_norm with one group per channel is instance norm") {
  Tensor x = floats({0, 2, 5, 5, 1, 3, 2, 4}, {2, 2, 2});
  auto y = values(group_norm(x, 2, {}, {}, 0.0));
  CHECK(y[0] == Approx(-1.0f));
  CHECK(y[1] == Approx(1.0f));
  CHECK(std::isnan(y[2]));  // a constant group: 0 / 0, as PyTorch with eps = 0
  CHECK(y[7] == Approx(1.0f));
}

TEST_CASE("cross_entropy and nll_loss") {
  Tensor logits = floats({0, 0, 0, std::log(3.0f)}, {2, 2});
  Tensor t = longs({1, 1}, {2});
  // row 0: -log(1/2); row 1: -log(3/4)
  auto none = values(cross_entropy(logits, t, {}, -100, "none"));
  CHECK(none[0] == Approx(std::log(2.0f)));
  CHECK(none[1] == Approx(-std::log(0.75f)));
  CHECK(cross_entropy(logits, t, {}, -100, "sum").item<float>() ==
        Approx(std::log(2.0f) - std::log(0.75f)));
  CHECK(cross_entropy(logits, longs({1, -100}, {2})).item<float>() == Approx(std::log(2.0f)));
  CHECK(nll_loss(logits, longs({0, 1}, {2}), {}, -100, "sum").item<float>() == Approx(-std::log(3.0f)));
  CHECK_THROWS_AS(cross_entropy(logits, longs({0, 2}, {2})), IndexError);
  CHECK_THROWS_AS(cross_entropy(logits, t, {}, -100, "avg"), ValueError);
}

TEST_CASE("element-wise losses") {
  Tensor a = floats({0, 1, 4}, {3}), b = floats({0, 3, 3}, {3});
  CHECK(mse_loss(a, b).item<float>() == Approx(5.0f / 3));
  CHECK(l1_loss(a, b, "sum").item<float>() == Approx(3.0f));
  CHECK(values(smooth_l1_loss(a, b, "none", 1.0)) == std::vector<float>{0.0f, 1.5f, 0.5f});
  CHECK(values(huber_loss(a, b, "none", 0.5)) == std::vector<float>{0.0f, 0.875f, 0.375f});
  Tensor p = floats({0.5f, 1.0f}, {2}), y = floats({1, 0}, {2});
  CHECK(values(binary_cross_entropy(p, y, {}, "none")) == std::vector<float>{std::log(2.0f), 100.0f});
  CHECK(binary_cross_entropy_with_logits(floats({0}, {1}), floats({1}, {1})).item<float>() ==
        Approx(std::log(2.0f)));
}

TEST_CASE("dropout is reproducible from the seed and scales the kept values") {
  Tensor x = ones({1000});
  manual_seed(7);
  auto [a, mask] = native_dropout(x, 0.25, true);
  manual_seed(7);
  Tensor b = dropout(x, 0.25);
  auto av = values(a), bv = values(b);
  CHECK(av == bv);
  const bool* m = mask.data_ptr<bool>();
  int64_t kept = 0;
  for (int64_t i = 0; i < 1000; ++i) {
    kept += m[i];
    CHECK(av[i] == (m[i] ? Approx(1 / 0.75f) : Approx(0.0f)));
  }
  CHECK(kept > 650);
  CHECK(kept < 850);
  CHECK(dropout(x, 0.5, false).is_same(x));
  CHECK_THROWS_AS(dropout(x, 1.5), ValueError);
}

TEST_CASE("embedding and one_hot") {
  Tensor w = floats({0, 1, 10, 11, 20, 21}, {3, 2});
  Tensor e = embedding(longs({2, 0, 2}, {3}), w);
  CHECK(e.sizes() == DimVector{3, 2});
  CHECK(values(e) == std::vector<float>{20, 21, 0, 1, 20, 21});
  CHECK_THROWS_AS(embedding(longs({3}, {1}), w), IndexError);
  Tensor h = one_hot(longs({1, 0, 2}, {3}));
  CHECK(h.sizes() == DimVector{3, 3});
  CHECK(h.data_ptr<int64_t>()[1] == 1);
  CHECK(h.data_ptr<int64_t>()[3] == 1);
  CHECK(h.data_ptr<int64_t>()[8] == 1);
}

TEST_CASE("pad modes and interpolate") {
  Tensor x = floats({1, 2, 3}, {1, 1, 3});
  CHECK(values(pad(x, {2, 1}, "reflect")) == std::vector<float>{3, 2, 1, 2, 3, 2});
  CHECK(values(pad(x, {2, 1}, "replicate")) == std::vector<float>{1, 1, 1, 2, 3, 3});
  CHECK(values(pad(x, {2, 1}, "circular")) == std::vector<float>{2, 3, 1, 2, 3, 1});
  CHECK(values(pad(x, {1, -1}, "constant", Scalar(9))) == std::vector<float>{9, 1, 2});
  CHECK(values(interpolate(x, IntList{6})) == std::vector<float>{1, 1, 2, 2, 3, 3});
  auto lin = values(interpolate(x, IntList{5}, std::nullopt, "linear", true));
  CHECK(lin == std::vector<float>{1, 1.5f, 2, 2.5f, 3});
  Tensor img = floats({0, 1, 2, 3}, {1, 1, 2, 2});
  auto up = values(interpolate(img, std::nullopt, std::vector<double>{2.0}, "bilinear", false));
  REQUIRE(up.size() == 16);
  CHECK(up[0] == Approx(0.0f));
  CHECK(up[1] == Approx(0.25f));  // source x = 0.25 between 0 and 1
  CHECK(up[5] == Approx(0.75f));  // (0.25, 0.25): 0.25 * 1 + 0.25 * 2
}
