// Saved-tensor hooks from C++ (ember/saved_tensor_hooks.h): saved tensors packed into
// something else and given back to backward; guards nest; disabling refuses them.
#include <catch2/catch.hpp>

#include <memory>

#include "ember/ember.h"
#include "ember/saved_tensor_hooks.h"

using namespace ember;

namespace {

// Keeps a copy of the tensor scaled by `scale`, and counts what it packed.
struct ScaledCopy : autograd::PackedTensor {
  Tensor copy;
  explicit ScaledCopy(Tensor t) : copy(std::move(t)) {}
  Tensor unpack() const override { return copy; }
};

autograd::PackHook scaled_copies(int* packed, double scale) {
  return [packed, scale](const Tensor& t) -> std::shared_ptr<autograd::PackedTensor> {
    ++*packed;
    NoGradGuard no_grad;
    return std::make_shared<ScaledCopy>(t * scale);
  };
}

}  // namespace

TEST_CASE("saved tensors go through the pack hook and back", "[autograd][hooks]") {
  Tensor x = tensor({1.0, 2.0, 3.0}).requires_grad_(true);
  int packed = 0;
  Tensor y;
  {
    autograd::SavedTensorHooksGuard guard(scaled_copies(&packed, 1.0));
    y = (x * x).sum();
  }
  REQUIRE(packed == 2);
  y.backward();
  REQUIRE(allclose(x.grad(), tensor({2.0, 4.0, 6.0})));
}

TEST_CASE("backward computes with what unpack returns; guards nest", "[autograd][hooks]") {
  Tensor x = tensor({1.0, 2.0}).requires_grad_(true);
  int outer = 0, inner = 0;
  Tensor y;
  {
    autograd::SavedTensorHooksGuard a(scaled_copies(&outer, 1.0));
    {
      autograd::SavedTensorHooksGuard b(scaled_copies(&inner, 2.0));  // saved values doubled
      y = (x * x).sum();
    }
  }
  REQUIRE(inner == 2);
  REQUIRE(outer == 0);
  y.backward();
  REQUIRE(allclose(x.grad(), tensor({4.0, 8.0})));
}

TEST_CASE("disabled saved-tensor hooks refuse to be installed", "[autograd][hooks]") {
  autograd::DisableSavedTensorHooksGuard off("not here");
  int packed = 0;
  REQUIRE_THROWS_WITH(autograd::SavedTensorHooksGuard(scaled_copies(&packed, 1.0)), Catch::Contains("not here"));
}
