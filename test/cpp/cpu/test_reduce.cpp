#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu/reduce_math.h"
#include "ember/ember.h"

using namespace ember;

namespace {

Tensor iota(const IntList& shape, DType dtype = kFloat32) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return arange(n).to(dtype).reshape(shape);
}

}  // namespace

TEST_CASE("sum, mean and prod over all dims, one dim and several dims") {
  Tensor x = iota({2, 3, 4});  // 0..23
  CHECK(sum(x).item<double>() == 276.0);
  CHECK(x.amax({}).item<double>() == 23.0);  // {} means every dim, not dim 0
  CHECK(amax(x, {}, true).sizes() == DimVector{1, 1, 1});
  CHECK(x.mean().item<double>() == Approx(11.5));
  Tensor s1 = sum(x, 1);
  REQUIRE(s1.sizes() == DimVector{2, 4});
  CHECK(s1.data_ptr<float>()[0] == 0 + 4 + 8);
  Tensor s02 = x.sum({0, 2}, /*keepdim=*/true);
  REQUIRE(s02.sizes() == DimVector{1, 3, 1});
  CHECK(s02.data_ptr<float>()[1] == (4 + 5 + 6 + 7) + (16 + 17 + 18 + 19));
  CHECK(prod(iota({4}) .narrow(0, 1, 3)).item<double>() == 6.0);
  Tensor ints = arange(1, 6);  // int64 1..5
  CHECK(ints.prod().item<int64_t>() == 120);
  Tensor small = ones({3}, kInt8);
  CHECK(small.sum().dtype() == kInt64);
  CHECK(small.sum(kFloat64).dtype() == kFloat64);
}

TEST_CASE("max and min over a dim give values and first-occurrence indices") {
  Tensor x = from_vector<float>({3, 7, 7, 1, 2, 9, 9, 0}, {2, 4});
  auto [values, indices] = max(x, 1);
  CHECK(values.data_ptr<float>()[0] == 7);
  CHECK(indices.data_ptr<int64_t>()[0] == 1);
  CHECK(indices.data_ptr<int64_t>()[1] == 1);
  auto [lo, where] = x.min(0, /*keepdim=*/true);
  REQUIRE(lo.sizes() == DimVector{1, 4});
  CHECK(where.data_ptr<int64_t>()[3] == 1);
  CHECK(x.max().item<double>() == 9);
  CHECK(x.t().argmax().item<int64_t>() == 3);  // flat index in the transposed (logical) order
  CHECK(argmin(x, 1).data_ptr<int64_t>()[1] == 3);
  CHECK_THROWS_AS(max(zeros({0})), Error);
  CHECK_THROWS_AS(argmax(zeros({0})), IndexError);
}

TEST_CASE("max propagates nan and argmax points at the first nan") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = from_vector<float>({1, nan, 5, nan}, {4});
  CHECK(std::isnan(x.amax().item<double>()));
  CHECK(x.argmax().item<int64_t>() == 1);
  CHECK(x.argmin().item<int64_t>() == 1);
}

TEST_CASE("var, std and var_mean") {
  Tensor x = from_vector<double>({1, 2, 3, 4}, {4});
  CHECK(var(x).item<double>() == Approx(5.0 / 3.0));
  CHECK(var(x, {}, 0).item<double>() == Approx(1.25));
  CHECK(x.std(0, 1, true).sizes() == DimVector{1});
  auto [v, m] = var_mean(x);
  CHECK(m.item<double>() == Approx(2.5));
  CHECK(v.item<double>() == Approx(5.0 / 3.0));
  CHECK(std::isnan(var(ones({1})).item<double>()));  // n - correction == 0
}

TEST_CASE("norm for several p, logsumexp, any, all, count_nonzero") {
  Tensor x = from_vector<float>({3, -4, 0}, {3});
  CHECK(norm(x).item<double>() == Approx(5));
  CHECK(norm(x, 1).item<double>() == Approx(7));
  CHECK(norm(x, 0).item<double>() == Approx(2));
  CHECK(norm(x, INFINITY).item<double>() == Approx(4));
  CHECK(norm(x, -INFINITY).item<double>() == Approx(0));
  CHECK(norm(x, 3).item<double>() == Approx(std::cbrt(27.0 + 64.0)));
  CHECK(x.norm("fro").item<double>() == Approx(5));
  Tensor big = from_vector<float>({1000, 1000}, {2});
  CHECK(logsumexp(big, 0).item<double>() == Approx(1000 + std::log(2.0)));
  CHECK(any(x).item<bool>());
  CHECK_FALSE(all(x).item<bool>());
  CHECK(count_nonzero(x).item<int64_t>() == 2);
  CHECK(any(ones({2}, kUInt8)).dtype() == kUInt8);
}

TEST_CASE("softmax rows sum to one; log_softmax is its log; scans") {
  Tensor x = iota({3, 5}).to(kFloat32);
  Tensor s = softmax(x, 1);
  for (int64_t r = 0; r < 3; ++r) {
    double total = 0;
    for (int64_t c = 0; c < 5; ++c) total += s.data_ptr<float>()[r * 5 + c];
    CHECK(total == Approx(1.0));
  }
  Tensor l = log_softmax(x, 0);
  Tensor s0 = softmax(x, 0);
  for (int64_t i = 0; i < 15; ++i)
    CHECK(std::exp(l.data_ptr<float>()[i]) == Approx(s0.data_ptr<float>()[i]).epsilon(1e-5));
  Tensor c = cumsum(arange(1, 5), 0);
  CHECK(c.dtype() == kInt64);
  CHECK(c.data_ptr<int64_t>()[3] == 10);
  Tensor p = iota({2, 3}, kFloat64).cumprod(0);
  CHECK(p.data_ptr<double>()[5] == 2 * 5);
}

TEST_CASE("a 16M-element float32 sum is accurate and uses the parallel paths") {
  const int64_t n = int64_t(1) << 24;
  Tensor x = full({n}, 0.1f);  // sequential float accumulation would be off by percents
  double expected = static_cast<double>(0.1f) * n;
  CHECK(std::abs(x.sum().item<double>() - expected) / expected < 1e-6);
  Tensor rows = x.view({4096, 4096});
  Tensor s0 = rows.sum(0);
  CHECK(std::abs(s0.data_ptr<float>()[17] - 0.1f * 4096) < 1e-3);
  Tensor tall = x.view({n / 4, 4});
  CHECK(std::abs(tall.sum(0).data_ptr<float>()[2] - 0.1 * (n / 4)) / (0.1 * (n / 4)) < 1e-6);
}

TEST_CASE("exp_float matches std::exp within a few ulp, and its special values") {
  double worst = 0;
  for (float v = -103.0f; v < 88.7f; v += 0.0137f) {
    double ref = std::exp(static_cast<double>(v));
    double got = cpu::exp_float(v);
    if (ref > 1e-37) worst = std::max(worst, std::abs(got - ref) / ref);
  }
  CHECK(worst < 4e-7);
  CHECK(cpu::exp_float(-INFINITY) == 0.0f);
  CHECK(std::isinf(cpu::exp_float(INFINITY)));
  CHECK(std::isinf(cpu::exp_float(89.0f)));
  CHECK(std::isnan(cpu::exp_float(NAN)));
  CHECK(cpu::exp_float(0.0f) == 1.0f);
}

TEST_CASE("the branch-free float16/bfloat16 conversions agree with Half and BFloat16") {
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    Half h;
    h.bits = static_cast<uint16_t>(bits);
    float ref = static_cast<float>(h), got = cpu::half_to_float(h);
    if (std::isnan(ref)) CHECK(std::isnan(got));
    else if (ref != got) FAIL_CHECK("half bits " << bits << ": " << got << " != " << ref);
  }
  int mismatches = 0;
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 4099) {  // floats across every exponent
    float f = std::bit_cast<float>(static_cast<uint32_t>(u));
    Half a = cpu::float_to_half(f), b(f);
    BFloat16 c = cpu::float_to_bfloat16(f), d(f);
    bool nan = std::isnan(f);
    if (nan ? !std::isnan(static_cast<float>(a)) : a.bits != b.bits) ++mismatches;
    if (nan ? !std::isnan(static_cast<float>(c)) : c.bits != d.bits) ++mismatches;
  }
  CHECK(mismatches == 0);
}
