#include <catch2/catch.hpp>

#include "ember/ember.h"

using namespace ember;

namespace {

std::vector<double> values(const Tensor& t) {
  Tensor d = t.to(kFloat64).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

}  // namespace

TEST_CASE("a seeded generator reproduces every random op") {
  auto draw = [](Generator& g) {
    std::vector<double> v;
    for (auto t : {rand({3}, &g), randn({3}, &g), randint(0, 100, {3}, &g), randperm(6, &g),
                   empty({3}).uniform_(-1, 1, &g), empty({3}).normal_(2, 3, &g),
                   empty({3}, kInt64).random_(&g), empty({3}, kInt64).random_(10, &g),
                   empty({3}, kInt64).random_(-5, std::optional<int64_t>(5), &g),
                   empty({8}).bernoulli_(0.5, &g), bernoulli(full({8}, 0.5), &g),
                   normal(zeros({3}), ones({3}), &g), normal(0.0, 1.0, {3}, &g)}) {
      auto tv = values(t);
      v.insert(v.end(), tv.begin(), tv.end());
    }
    return v;
  };
  Generator a(5), b(5), c(6);
  std::vector<double> va = draw(a);
  CHECK(va == draw(b));
  CHECK(va != draw(c));
  CHECK(va != draw(a));  // a moved on
}

TEST_CASE("generators are independent of each other and of the default one") {
  manual_seed(1);
  std::vector<double> expected = values(rand({5}));
  manual_seed(1);
  Generator g(1);
  rand({100}, &g);
  CHECK(values(rand({5})) == expected);
  Generator h(1);
  CHECK(values(rand({5}, &h)) == expected);  // same seed as the default had: same numbers
}

TEST_CASE("generator state round trip") {
  Generator g(3);
  rand({4}, &g);
  Tensor state = g.get_state();
  CHECK(state.dtype() == kUInt8);
  CHECK(state.numel() == Generator::kStateBytes);
  std::vector<double> a = values(randn({6}, &g));
  g.set_state(state);
  CHECK(values(randn({6}, &g)) == a);
  Generator other;
  other.set_state(state);
  CHECK(values(randn({6}, &other)) == a);
  CHECK(g.manual_seed(9).initial_seed() == 9);
  CHECK_THROWS_AS(g.set_state(zeros({16})), TypeError);
  CHECK_THROWS_AS(g.set_state(zeros({3}, kUInt8)), Error);

  manual_seed(2);
  Tensor s = get_rng_state();
  std::vector<double> b = values(rand({3}));
  set_rng_state(s);
  CHECK(values(rand({3})) == b);
  CHECK(initial_seed() == 2);
}

TEST_CASE("random_ ranges and argument checks") {
  Generator g(0);
  Tensor x = empty({2000}, kInt8).random_(&g);
  CHECK(min(x).item<int64_t>() >= 0);
  CHECK(max(x).item<int64_t>() == 127);
  x = empty({2000}, kInt64).random_(3, std::optional<int64_t>(6), &g);
  CHECK(min(x).item<int64_t>() == 3);
  CHECK(max(x).item<int64_t>() == 5);
  CHECK_THROWS_AS(empty({2}, kInt8).random_(0, std::optional<int64_t>(300)), Error);
  CHECK_THROWS_AS(empty({2}, kInt64).random_(5, std::optional<int64_t>(5)), Error);
  CHECK_THROWS_AS(empty({2}).uniform_(1, 0), Error);
  CHECK_THROWS_AS(empty({2}).normal_(0, -1), Error);
  CHECK_THROWS_AS(empty({2}).bernoulli_(2.0), Error);
  if (cuda::is_built()) CHECK_NOTHROW(Generator(Device("cuda")));  // same Philox stream on a GPU
  else CHECK_THROWS_AS(Generator(Device("cuda")), Error);
}
