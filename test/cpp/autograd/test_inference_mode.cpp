// ember::InferenceMode (ember/inference_mode.h): tensors made inside are inference
// tensors (their views too, not views of normal tensors), nothing is recorded, and
// outside inference mode they are refused by autograd and by in-place writes.
#include <catch2/catch.hpp>

#include "ember/ember.h"

using namespace ember;

TEST_CASE("InferenceMode makes inference tensors and restores the modes", "[autograd]") {
  Tensor normal = ones({2});
  Tensor x, view_of_x, view_of_normal;
  REQUIRE(is_grad_enabled());
  {
    InferenceMode guard;
    CHECK(is_inference_mode_enabled());
    CHECK_FALSE(is_grad_enabled());
    x = ones({2}, TensorOptions(kFloat32));
    view_of_x = x.narrow(0, 0, 1);
    view_of_normal = normal.narrow(0, 0, 1);
    x.add_(1.0);  // in place inside inference mode is allowed
    {
      InferenceMode off(false);
      CHECK_FALSE(is_inference_mode_enabled());
      CHECK_FALSE(ones({1}).is_inference());
    }
    CHECK(is_inference_mode_enabled());
  }
  CHECK_FALSE(is_inference_mode_enabled());
  CHECK(is_grad_enabled());
  CHECK(x.is_inference());
  CHECK(view_of_x.is_inference());
  CHECK_FALSE(normal.is_inference());
  CHECK_FALSE(view_of_normal.is_inference());
}

TEST_CASE("inference tensors stay out of autograd and in-place writes", "[autograd]") {
  Tensor x;
  {
    InferenceMode guard;
    x = full({2}, 3.0);
  }
  Tensor w = ones({2}).requires_grad_(true);
  CHECK_THROWS_AS(mul(x, w), Error);          // would be saved for backward
  CHECK_THROWS_AS(x.add_(1.0), Error);        // in place outside inference mode
  CHECK_THROWS_AS(x.requires_grad_(true), Error);
  CHECK(x.sum().item<float>() == 6.0f);       // unchanged, and usable out of place
  Tensor y = add(x, 1.0);
  CHECK_FALSE(y.is_inference());
}
