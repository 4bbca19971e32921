// The conv / pool backward primitives from C++, and the max_pool2d row, which
// only a direct dispatch reaches (the op function asks for the indices when
// a gradient is needed).
#include <catch2/catch.hpp>

#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/linalg.h"
#include "ember/autograd.h"
#include "ember/ember.h"

using namespace ember;

namespace {

void require_equal(const Tensor& a, const Tensor& b) {
  REQUIRE(a.sizes() == b.sizes());
  Tensor ac = a.contiguous(), bc = b.contiguous();
  for (int64_t i = 0; i < a.numel(); ++i) CHECK(ac.data_ptr<double>()[i] == Approx(bc.data_ptr<double>()[i]));
}

}  // namespace

TEST_CASE("max_pool2d dispatched directly with grad on finds its indices in backward") {
  Tensor x = randn({2, 3, 7, 6}, TensorOptions(kFloat64)).requires_grad_();
  DimVector k{3, 3}, s{2, 2}, p{1, 1}, d{1, 1};
  OpCall call(opid::max_pool2d, {x}, {Attr(k), Attr(s), Attr(p), Attr(d), Attr(true)});
  Tensor y = dispatch_one(call);
  REQUIRE(y.grad_fn());
  CHECK(y.grad_fn()->name() == "MaxPool2dBackward0");
  Tensor g = randn(IntList(y.sizes().begin(), y.sizes().end()), TensorOptions(kFloat64));
  TensorList direct = autograd::grad({y}, {x}, {g});
  auto [values, indices] = max_pool2d_with_indices(x, {3}, {2}, {1}, {1}, true);
  require_equal(direct[0], max_pool2d_backward(g, indices, {2, 3, 7, 6}));
}

TEST_CASE("conv2d's gradients are its backward primitives") {
  Tensor x = randn({2, 4, 6, 5}, TensorOptions(kFloat64)).requires_grad_();
  Tensor w = randn({6, 2, 3, 2}, TensorOptions(kFloat64)).requires_grad_();
  Tensor y = conv2d(x, w, {}, {2, 1}, {1}, {1, 2}, 2);
  Tensor g = randn(IntList(y.sizes().begin(), y.sizes().end()), TensorOptions(kFloat64));
  TensorList grads = autograd::grad({y}, {x, w}, {g});
  require_equal(grads[0], conv2d_backward_input(g, w.detach(), {2, 4, 6, 5}, {2, 1}, {1}, {1, 2}, 2));
  require_equal(grads[1], conv2d_backward_weight(g, x.detach(), {6, 2, 3, 2}, {2, 1}, {1}, {1, 2}, 2));
}
