// The fused optimizer-update ops (include/ember/ops/optim.h) called directly:
// in-place writes through views, version bumps, argument checks.
#include <catch2/catch.hpp>

#include "ember/autograd.h"
#include "ember/ember.h"

using namespace ember;

TEST_CASE("sgd_step_ writes through a non-contiguous parameter and bumps versions") {
  Tensor base = from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor param = base.t();  // [3, 2], non-contiguous
  Tensor grad = ones({3, 2});
  Tensor buffer = empty({3, 2});
  const uint64_t v_param = param.version(), v_buffer = buffer.version();
  sgd_step_(param, grad, buffer, /*lr=*/0.5, /*momentum=*/0.9, 0, 0, false, false,
            /*init_buffer=*/true);
  const float* b = base.contiguous().data_ptr<float>();
  for (int i = 0; i < 6; ++i) CHECK(b[i] == Approx(i + 1 - 0.5));
  CHECK(buffer.contiguous().data_ptr<float>()[0] == 1);
  CHECK(param.version() > v_param);
  CHECK(buffer.version() > v_buffer);
}

TEST_CASE("adam_step_ on float64 with a transposed gradient") {
  Tensor param = zeros({2, 2}, kFloat64);
  Tensor grad = from_vector<double>({1, 2, 3, 4}, {2, 2}).t();
  Tensor m = zeros({2, 2}, kFloat64), v = zeros({2, 2}, kFloat64);
  adam_step_(param, grad, m, v, Tensor(), 0.1, 0.9, 0.999, 0, 0, 1, false, false);
  // First step with eps 0: param -= lr * sign(grad).
  const double* p = param.data_ptr<double>();
  for (int i = 0; i < 4; ++i) CHECK(p[i] == Approx(-0.1));
  CHECK(m.data_ptr<double>()[1] == Approx(0.1 * 3));  // grad[0][1] = 3 (transposed)
}

TEST_CASE("the fused steps check their arguments") {
  Tensor p = zeros({3});
  CHECK_THROWS_WITH(adagrad_step_(p, zeros({3}), zeros({4}), 0.1, 0, 0, 1e-10, 1, false),
                    Catch::Contains("adagrad_step: expected sum of shape [3]"));
  CHECK_THROWS_AS(adagrad_step_(p, zeros({3}), zeros({3}), 0.1, 0, 0, 1e-10, 0, false), ValueError);
  CHECK_THROWS_AS(rmsprop_step_(zeros({3}, kInt64), zeros({3}, kInt64), zeros({3}, kInt64), {}, {},
                                0.1, 0.9, 1e-8, 0, 0, false),
                  TypeError);
  Tensor leaf = zeros({3}).requires_grad_();
  CHECK_THROWS_WITH(sgd_step_(leaf, zeros({3}), {}, 0.1, 0, 0, 0, false, false, false),
                    Catch::Contains("in-place operation (sgd_step)"));
  NoGradGuard no_grad;  // as the optimizers run them
  sgd_step_(leaf, ones({3}), {}, 0.1, 0, 0, 0, false, false, false);
  CHECK(leaf.data_ptr<float>()[2] == Approx(-0.1));
  CHECK(leaf.is_leaf());
}
