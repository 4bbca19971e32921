// Elementwise ops from C++: values, broadcasting, promotion, in-place rules,
// operators, and the vectorized float32 math against <cmath>.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "cpu/vec_math.h"
#include "ember/ember.h"

using namespace ember;

namespace {
template <typename T>
std::vector<T> values(const Tensor& t) {
  Tensor c = t.contiguous();
  const T* p = c.data_ptr<T>();
  return std::vector<T>(p, p + c.numel());
}
}  // namespace

TEST_CASE("binary ops broadcast and compute like numpy") {
  Tensor a = arange(6, kFloat32).reshape({2, 3});
  Tensor b = tensor({10.0f, 20.0f, 30.0f});
  CHECK(values<float>(add(a, b)) == std::vector<float>{10, 21, 32, 13, 24, 35});
  CHECK(values<float>(a * b) == std::vector<float>{0, 20, 60, 30, 80, 150});
  CHECK(values<float>(sub(a, b, 2)) == std::vector<float>{-20, -39, -58, -17, -36, -55});
  CHECK(values<float>(b / 10) == std::vector<float>{1, 2, 3});
  CHECK(values<float>(1 - a.t()) == std::vector<float>{1, -2, 0, -3, -1, -4});
  Tensor m = maximum(a, tensor({2.0f, 0.0f, 9.0f}));
  CHECK(values<float>(m) == std::vector<float>{2, 1, 9, 3, 4, 9});
}

TEST_CASE("type promotion follows PyTorch") {
  Tensor i = arange(4);  // int64
  CHECK((i + 2.5).dtype() == kFloat32);
  CHECK((i + 2).dtype() == kInt64);
  CHECK((i / 2).dtype() == kFloat32);
  CHECK(div(i, 2, "floor").dtype() == kInt64);
  Tensor u = full({2}, 1, kUInt8);
  Tensor w = u + 1000;
  CHECK(w.dtype() == kUInt8);
  CHECK(values<uint8_t>(w)[0] == 233);
  CHECK(eq(i, 2.0).dtype() == kBool);
  CHECK(exp(i).dtype() == kFloat32);
  CHECK((full({2}, 1, kFloat16) * 3.0).dtype() == kFloat16);
}

TEST_CASE("integer division follows Python's signs") {
  Tensor a = tensor<int64_t>({-7, 7, -7, 7});
  Tensor b = tensor<int64_t>({2, -2, -2, 2});
  CHECK(values<int64_t>(div(a, b, "floor")) == std::vector<int64_t>{-4, -4, 3, 3});
  CHECK(values<int64_t>(div(a, b, "trunc")) == std::vector<int64_t>{-3, -3, 3, 3});
  CHECK(values<int64_t>(remainder(a, b)) == std::vector<int64_t>{1, -1, -1, 1});
  CHECK(values<int64_t>(fmod(a, b)) == std::vector<int64_t>{-1, 1, -1, 1});
  CHECK_THROWS_WITH(div(a, 0, "floor"), Catch::Contains("ZeroDivisionError"));
}

TEST_CASE("in-place ops write into self, bump its version and check the cast") {
  Tensor x = ones({3});
  uint64_t v = x.version();
  Tensor& r = x.add_(2);
  CHECK(&r == &x);
  CHECK(x.version() == v + 1);
  CHECK(values<float>(x) == std::vector<float>{3, 3, 3});
  x *= tensor({1.0f, 2.0f, 3.0f});
  CHECK(values<float>(x) == std::vector<float>{3, 6, 9});
  x.clamp_(4, 8);
  CHECK(values<float>(x) == std::vector<float>{4, 6, 8});
  Tensor i = arange(3);
  CHECK_THROWS_WITH(i.add_(0.5), Catch::Contains("result type Float can't be cast to the desired output type Long"));
  CHECK_THROWS_AS(exp_(i), Error);
  CHECK_THROWS_WITH(ones({3}).add_(ones({2, 3})), Catch::Contains("doesn't match the broadcast shape"));
}

TEST_CASE("comparisons, logic, where and bitwise") {
  Tensor a = tensor({1.0f, 5.0f, 3.0f});
  Tensor c = gt(a, 2);
  CHECK(c.dtype() == kBool);
  CHECK(values<bool>(c) == std::vector<bool>{false, true, true});
  CHECK(values<bool>(logical_not(c)) == std::vector<bool>{true, false, false});
  CHECK(values<float>(where(c, a, 0.0)) == std::vector<float>{0, 5, 3});
  Tensor i = tensor<int32_t>({12, 10});
  CHECK(values<int32_t>(i & tensor<int32_t>({6, 6})) == std::vector<int32_t>{4, 2});
  CHECK(values<int32_t>(bitwise_left_shift(i, 40)) == std::vector<int32_t>{0, 0});
  CHECK(values<int32_t>(~i) == std::vector<int32_t>{-13, -11});
  CHECK_THROWS_AS(bitwise_and(a, a), NotImplementedError);
}

TEST_CASE("unary ops on non-contiguous and empty tensors") {
  Tensor x = arange(6, kFloat32).reshape({2, 3}).t();
  Tensor y = neg(x);
  CHECK(y.sizes() == DimVector{3, 2});
  CHECK(values<float>(y) == std::vector<float>{-0.0f, -3, -1, -4, -2, -5});
  CHECK(exp(empty(IntList{0, 4})).sizes() == DimVector{0, 4});
  CHECK(values<float>(relu(tensor({-1.0f, 2.0f}))) == std::vector<float>{0, 2});
  CHECK(values<float>(round(tensor({0.5f, 1.5f, 2.5f}))) == std::vector<float>{0, 2, 2});
}

TEST_CASE("vectorized float32 math is within a few ulp of <cmath>") {
  using namespace ember::cpu;
  // |got - want| in units of the float spacing at want.
  auto ulps = [](float got, double want) {
    float w = std::fabs(static_cast<float>(want));
    return std::fabs(got - want) / (std::nextafter(w, INFINITY) - w);
  };
  double worst_exp = 0, worst_log = 0, worst_tanh = 0, worst_erf = 0;
  for (float x = -80.0f; x < 80.0f; x += 0.0137f) {
    worst_exp = std::max(worst_exp, ulps(vec::exp(x), std::exp(double(x))));
    worst_tanh = std::max(worst_tanh, ulps(vec::tanh(x / 8), std::tanh(double(x / 8))));
    worst_erf = std::max(worst_erf, ulps(vec::erf(x / 16), std::erf(double(x / 16))));
    float p = std::fabs(x) + 1e-3f;
    worst_log = std::max(worst_log, ulps(vec::log(p), std::log(double(p))));
  }
  CHECK(worst_exp <= 2);
  CHECK(worst_log <= 2);
  CHECK(worst_tanh <= 2);
  CHECK(worst_erf <= 3);
  CHECK(std::isnan(vec::exp(NAN)));
  CHECK(vec::exp(-INFINITY) == 0.0f);
  CHECK(vec::exp(INFINITY) == INFINITY);
  CHECK(vec::log(0.0f) == -INFINITY);
  CHECK(std::isnan(vec::log(-1.0f)));
  CHECK(vec::tanh(INFINITY) == 1.0f);
  CHECK(vec::sigmoid(-200.0f) == 0.0f);
  CHECK(vec::sigmoid(200.0f) == 1.0f);
}
