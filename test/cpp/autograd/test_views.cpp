// In-place ops on views from C++ (Note [View + in-place] in lib/autograd/view_tracking.cpp).
#include <catch2/catch.hpp>

#include "ember/ember.h"

using namespace ember;

namespace {
double at(const Tensor& t, int64_t i) { return t.contiguous().data_ptr<double>()[i]; }
}  // namespace

TEST_CASE("an in-place op on a view rebases its base's history") {
  Tensor x = tensor({1.0, 2.0, 3.0, 4.0}, kFloat64).requires_grad_();
  Tensor y = x * 1;
  Tensor row = y.view({2, 2}).select(0, 1);
  row.mul_(3);
  CHECK(y.grad_fn()->name() == "CopySlices");
  CHECK(row.grad_fn()->name() == "AsStridedBackward0");
  CHECK(y._base().defined() == false);
  CHECK(row._base().is_same(y));
  (y * y).sum().backward();  // y = [x0, x1, 3 x2, 3 x3]
  CHECK(at(x.grad(), 1) == Approx(2 * 2.0));
  CHECK(at(x.grad(), 2) == Approx(18 * 3.0));
}

TEST_CASE("copying into a slice of a buffer that needs no grad gives the source a gradient") {
  Tensor z = tensor({1.0, 2.0}, kFloat64).requires_grad_();
  Tensor buffer = zeros({3, 2}, kFloat64);
  for (int64_t i = 0; i < 3; ++i) buffer.select(0, i).copy_(z * static_cast<double>(i));
  CHECK(buffer.requires_grad());
  buffer.sum().backward();
  CHECK(at(z.grad(), 0) == Approx(3.0));
  CHECK(at(z.grad(), 1) == Approx(3.0));
}

TEST_CASE("in-place ops on views are refused where PyTorch refuses them") {
  Tensor x = tensor({1.0, 2.0}, kFloat64).requires_grad_();
  CHECK_THROWS_WITH(x.narrow(0, 0, 1).mul_(2), Catch::Contains("a view of a leaf Variable"));
  Tensor y = x * 1;
  Tensor v;
  {
    NoGradGuard no_grad;
    v = y.narrow(0, 0, 1);
  }
  CHECK_THROWS_WITH(v.mul_(2), Catch::Contains("created in no_grad mode"));
  TensorList parts = y.unbind(0);
  CHECK_THROWS_WITH(parts[1].mul_(2), Catch::Contains("Output 1 of unbind is a view"));
}
