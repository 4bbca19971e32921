// The C++ front end's samplers built from uniform draws (lib/ops/random_distributions.cpp)
// and in-place views, unfold and resize_ (lib/ops/views_in_place.cpp): frequencies and
// moments of many draws, geometry and values, errors that leave self unchanged.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

DimVector dims(std::initializer_list<int64_t> d) { return DimVector(d.begin(), d.end()); }

std::vector<double> values(const Tensor& t) {
  Tensor c = t.detach().to(kFloat64).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

}  // namespace

TEST_CASE("multinomial draws categories in proportion to the weights", "[ops][random]") {
  Generator g;
  g.manual_seed(5);
  Tensor weights = tensor({2.0, 0.0, 6.0, 2.0});  // probabilities 0.2, 0, 0.6, 0.2
  Tensor draws = multinomial(weights, 20000, /*replacement=*/true, &g);
  REQUIRE(draws.dtype() == kInt64);
  REQUIRE(draws.sizes() == dims({20000}));
  std::vector<double> counts(4, 0.0);
  for (double v : values(draws)) counts[static_cast<size_t>(v)] += 1.0 / 20000;
  CHECK(counts[0] == Approx(0.2).margin(0.015));
  CHECK(counts[1] == 0.0);
  CHECK(counts[2] == Approx(0.6).margin(0.015));
  CHECK(counts[3] == Approx(0.2).margin(0.015));
}

TEST_CASE("multinomial without replacement gives distinct categories, zero weights last",
          "[ops][random]") {
  Tensor weights = tensor({0.5, 0.0, 0.5}).unsqueeze(0).expand({64, 3}).contiguous();
  Tensor draws = weights.multinomial(3);
  REQUIRE(draws.sizes() == dims({64, 3}));
  for (int64_t r = 0; r < 64; ++r) {
    std::vector<double> row = values(draws.select(0, r));
    CHECK(row[2] == 1.0);
    CHECK(row[0] + row[1] == 2.0);
  }
}

TEST_CASE("multinomial refuses what PyTorch refuses", "[ops][random]") {
  CHECK_THROWS_AS(multinomial(tensor({1.0, -1.0}), 1), Error);
  CHECK_THROWS_AS(multinomial(tensor({0.0, 0.0}), 1), Error);
  CHECK_THROWS_AS(multinomial(tensor({1.0, 1.0}), 3), Error);
  CHECK_THROWS_AS(multinomial(tensor({1.0, 1.0}), 0), Error);
  CHECK_THROWS_AS(multinomial(ones({2, 2, 2}), 1), Error);
  CHECK_THROWS_AS(multinomial(tensor({int64_t{1}, int64_t{2}}), 1), Error);
}

TEST_CASE("exponential_ and geometric_ have the right means and check first", "[ops][random]") {
  Generator g;
  g.manual_seed(9);
  Tensor e = empty({100000}, TensorOptions(kFloat64));
  exponential_(e, 4.0, &g);
  CHECK(mean(e).item<double>() == Approx(0.25).margin(0.005));
  CHECK(min(e).item<double>() >= 0.0);
  Tensor k = zeros({100000}, TensorOptions(kInt64));
  geometric_(k, 0.5, &g);
  CHECK(k.to(kFloat64).mean().item<double>() == Approx(2.0).margin(0.03));
  CHECK(min(k).item<int64_t>() == 1);
  Tensor kept = arange(3.0);
  CHECK_THROWS_AS(kept.exponential_(0.0), Error);
  CHECK_THROWS_AS(kept.cauchy_(0.0, -1.0), Error);
  CHECK_THROWS_AS(kept.log_normal_(1.0, 0.0), Error);
  CHECK(values(kept) == std::vector<double>{0.0, 1.0, 2.0});
}

TEST_CASE("in-place views change the tensor's own geometry", "[ops][views]") {
  Tensor x = arange(6.0).view({2, 3});
  x.t_();
  CHECK(x.sizes() == dims({3, 2}));
  CHECK(x.strides() == dims({1, 3}));
  CHECK(values(x) == std::vector<double>{0, 3, 1, 4, 2, 5});
  x.unsqueeze_(0);
  CHECK(x.sizes() == dims({1, 3, 2}));
  x.squeeze_();
  CHECK(x.sizes() == dims({3, 2}));
  x.transpose_(0, 1);
  CHECK(x.is_contiguous());
  x.as_strided_({2}, {2}, 1);
  CHECK(values(x) == std::vector<double>{1, 3});
  Tensor y = arange(4.0);
  CHECK_THROWS_AS(y.transpose_(0, 3), IndexError);
  CHECK(y.sizes() == dims({4}));
}

TEST_CASE("in-place views differentiate through the view", "[ops][views][autograd]") {
  Tensor x = arange(6.0).view({2, 3}).requires_grad_(true);
  Tensor y = x * 1.0;
  y.t_();
  (y * arange(6.0).view({3, 2})).sum().backward();
  // d/dx of sum(x^T * w) is w^T.
  CHECK(values(x.grad()) == std::vector<double>{0, 2, 4, 1, 3, 5});
  Tensor leaf = ones({2, 2}).requires_grad_(true);
  CHECK_THROWS_AS(leaf.t_(), Error);
}

TEST_CASE("unfold gives every window as a view", "[ops][views]") {
  Tensor x = arange(7.0);
  Tensor w = x.unfold(0, 3, 2);
  CHECK(w.sizes() == dims({3, 3}));
  CHECK(values(w) == std::vector<double>{0, 1, 2, 2, 3, 4, 4, 5, 6});
  CHECK(w.data_ptr() == x.data_ptr());
  CHECK_THROWS_AS(x.unfold(0, 8, 1), Error);
  CHECK_THROWS_AS(x.unfold(0, 2, 0), Error);
}

TEST_CASE("resize_ keeps the old elements and grows the shared storage", "[ops][views]") {
  Tensor x = arange(4.0);
  Tensor view = x.view({2, 2});
  x.resize_({3, 3});
  CHECK(x.sizes() == dims({3, 3}));
  std::vector<double> head = values(x.flatten().narrow(0, 0, 4));
  CHECK(head == std::vector<double>{0, 1, 2, 3});
  view.fill_(5.0);  // the old view sees the new block
  CHECK(values(x.flatten().narrow(0, 0, 4)) == std::vector<double>{5, 5, 5, 5});
  x.resize_({2});
  CHECK(values(x) == std::vector<double>{5, 5});
  CHECK_THROWS_AS(ones({2}).requires_grad_(true).resize_({3}), Error);
}
