// ember::AutocastGuard (ember/autocast.h): the per-thread state it sets and restores,
// the op policies it turns on (from the op schema rows), gradients in the parameters'
// dtype, and the weight cast cache dropped at the outermost region's end.
#include <catch2/catch.hpp>

#include <thread>

#include "ember/autocast.h"
#include "ember/ember.h"

using namespace ember;

TEST_CASE("AutocastGuard sets and restores the per-thread state", "[autograd][autocast]") {
  REQUIRE_FALSE(autocast::is_enabled(DeviceType::CPU));
  CHECK(autocast::get_dtype(DeviceType::CPU) == kBFloat16);
  CHECK(autocast::get_dtype(DeviceType::CUDA) == kFloat16);
  {
    AutocastGuard guard(DeviceType::CPU);
    CHECK(autocast::is_enabled(DeviceType::CPU));
    CHECK_FALSE(autocast::is_enabled(DeviceType::CUDA));
    {
      AutocastGuard off(DeviceType::CPU, kFloat16, false, false);
      CHECK_FALSE(autocast::is_enabled(DeviceType::CPU));
      CHECK(autocast::get_dtype(DeviceType::CPU) == kFloat16);
      CHECK_FALSE(autocast::is_cache_enabled());
    }
    CHECK(autocast::is_enabled(DeviceType::CPU));
    CHECK(autocast::get_dtype(DeviceType::CPU) == kBFloat16);
    CHECK(autocast::is_cache_enabled());
    bool other_thread_enabled = true;
    std::thread([&] { other_thread_enabled = autocast::is_enabled(DeviceType::CPU); }).join();
    CHECK_FALSE(other_thread_enabled);
  }
  CHECK_FALSE(autocast::is_enabled(DeviceType::CPU));
  // A guard refused for its dtype changes nothing.
  CHECK_THROWS_AS(AutocastGuard(DeviceType::CPU, kFloat32), Error);
  CHECK_FALSE(autocast::is_enabled(DeviceType::CPU));
  CHECK(autocast::increment_nesting() == 1);
  CHECK(autocast::decrement_nesting() == 0);
}

TEST_CASE("AutocastGuard runs each policy class as its schema row says", "[autograd][autocast]") {
  Tensor a = randn({3, 4});
  Tensor b = randn({4, 5});
  Tensor a64 = a.to(kFloat64), b64 = b.to(kFloat64);
  Tensor half_a = a.to(kBFloat16);
  AutocastGuard guard(DeviceType::CPU);
  CHECK(mm(a, b).dtype() == kBFloat16);                 // lower precision
  CHECK(mm(half_a, b).dtype() == kBFloat16);            // a mixed pair meets in bfloat16
  CHECK(mm(a64, b64).dtype() == kFloat64);              // float64 is never cast
  CHECK(mse_loss(half_a, half_a).dtype() == kFloat32);  // fp32
  CHECK(cat({half_a, a}).dtype() == kFloat32);          // promote: the widest input
  CHECK(cat({half_a, half_a}).dtype() == kBFloat16);
  CHECK(exp(half_a).dtype() == kBFloat16);  // no CPU policy: its input's dtype
  CHECK(a.dtype() == kFloat32);             // inputs are left as they were
}

TEST_CASE("gradients under autocast come back in the parameters' dtype; copies are cached",
          "[autograd][autocast]") {
  Tensor w = randn({5, 4}).requires_grad_(true);
  Tensor x = randn({3, 4});
  {
    AutocastGuard guard(DeviceType::CPU);
    Tensor h = linear(x, w);
    Tensor out = h.relu() + linear(x * 2.0, w);  // another use of w
    CHECK(out.dtype() == kBFloat16);
    CHECK(autocast::cache_size() == 1);  // one copy of w for both uses
    out.to(kFloat32).sum().backward();
  }
  CHECK(autocast::cache_size() == 0);  // dropped when the region ended
  REQUIRE(w.grad().defined());
  CHECK(w.grad().dtype() == kFloat32);
  CHECK(w.grad().sizes() == w.sizes());
}
