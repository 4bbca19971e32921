#include <catch2/catch.hpp>

#include "ember/autograd.h"
#include "ember/ember.h"

using namespace ember;

TEST_CASE("index_fill and masked_fill give a 0-dim tensor value its gradient") {
  Tensor x = tensor({1.0, 2.0, 3.0, 4.0}, kFloat64).requires_grad_();
  Tensor v = scalar_tensor(5.0, TensorOptions(kFloat64)).requires_grad_();
  Tensor y = index_fill(x * 1, 0, tensor({3, 0, 3}, kInt64), v);
  Tensor mask = eq(tensor({1, 0, 0, 0}), 1);
  Tensor z = masked_fill(y, mask, v * 2);
  (z * tensor({1.0, 10.0, 100.0, 1000.0}, kFloat64)).sum().backward();
  // x: zero where filled; v: 1000 through index_fill (slot 3; slot 0 was
  // overwritten again by masked_fill) plus 2 * 1 through masked_fill.
  const double* gx = x.grad().data_ptr<double>();
  CHECK(gx[0] == 0.0);
  CHECK(gx[1] == 10.0);
  CHECK(gx[2] == 100.0);
  CHECK(gx[3] == 0.0);
  CHECK(v.grad().item().to_double() == Approx(1002.0));
}

TEST_CASE("gather's gradient is differentiable (scatter_add, then gather)") {
  Tensor x = tensor({1.0, 2.0, 3.0}, kFloat64).requires_grad_();
  Tensor i = tensor({2, 2, 0});
  Tensor y = (gather(x, 0, i) * gather(x, 0, i)).sum();
  TensorList g = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true);
  // dy/dx = 2 x * count: [2, 0, 12]; d(sum g)/dx = 2 * count = [2, 0, 4].
  CHECK(g[0].data_ptr<double>()[2] == Approx(12.0));
  TensorList h = autograd::grad({g[0].sum()}, {x});
  CHECK(h[0].data_ptr<double>()[0] == Approx(2.0));
  CHECK(h[0].data_ptr<double>()[1] == Approx(0.0));
  CHECK(h[0].data_ptr<double>()[2] == Approx(4.0));
}
