#include <catch2/catch.hpp>

#include "ember/autograd.h"
#include "ember/ember.h"

using namespace ember;

TEST_CASE("backward from C++ accumulates into leaves") {
  Tensor x = tensor({1.0, 2.0, 3.0}, kFloat64).requires_grad_();
  Tensor y = (x * x).sum();
  y.backward();
  REQUIRE(x.grad().defined());
  for (int i = 0; i < 3; ++i) CHECK(x.grad().data_ptr<double>()[i] == Approx(2.0 * (i + 1)));
  CHECK(y.grad_fn()->name() == "SumBackward0");
}

TEST_CASE("autograd::grad with create_graph gives second derivatives") {
  Tensor x = tensor({0.5, -1.0}, kFloat64).requires_grad_();
  Tensor y = (x * x * x).sum();
  TensorList g = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true);
  TensorList h = autograd::grad({g[0].sum()}, {x});
  CHECK(h[0].data_ptr<double>()[0] == Approx(6 * 0.5));
  CHECK(h[0].data_ptr<double>()[1] == Approx(-6.0));
}

TEST_CASE("NoGradGuard stops recording") {
  Tensor x = ones({2}).requires_grad_();
  {
    NoGradGuard guard;
    CHECK_FALSE((x * 2).requires_grad());
  }
  CHECK((x * 2).requires_grad());
}
