// The C++ activation modules of nn/modules/activation_extra.h against their
// formulas, printing, PReLU's parameter and gradient, RReLU's train/eval forms.
#include <cmath>
#include <sstream>

#include "nn_test_utils.h"

using namespace ember;
using nn_test::check_close;
using nn_test::values;

namespace {

std::string printed(const nn::Module& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

}  // namespace

TEST_CASE("More activation modules against their formulas", "[nn]") {
  Tensor x = nn_test::tensor_of({-4, -2, -0.5, 0, 1.5, 3.5, 7}, {7});
  std::vector<double> xs = values(x);
  auto each = [&](auto f) {
    std::vector<double> out;
    for (double v : xs) out.push_back(f(v));
    return out;
  };
  check_close(nn::ELU(nn::ELUOptions().alpha(0.5))(x),
              each([](double v) { return v > 0 ? v : 0.5 * std::expm1(v); }), 1e-6);
  check_close(nn::CELU(nn::CELUOptions().alpha(2.0))(x),
              each([](double v) { return v > 0 ? v : 2.0 * std::expm1(v / 2.0); }), 1e-6);
  const double a = 1.6732632423543772, s = 1.0507009873554805;
  check_close(nn::SELU()(x), each([&](double v) { return s * (v > 0 ? v : a * std::expm1(v)); }), 1e-6);
  check_close(nn::Hardtanh(nn::HardtanhOptions().min_val(-1).max_val(2))(x),
              each([](double v) { return std::min(std::max(v, -1.0), 2.0); }));
  check_close(nn::ReLU6()(x), each([](double v) { return std::min(std::max(v, 0.0), 6.0); }));
  check_close(nn::Hardsigmoid()(x), each([](double v) { return std::min(std::max(v + 3, 0.0), 6.0) / 6; }));
  check_close(nn::Hardswish()(x), each([](double v) { return v * std::min(std::max(v + 3, 0.0), 6.0) / 6; }));
  check_close(nn::Mish()(x), each([](double v) { return v * std::tanh(std::log1p(std::exp(v))); }), 1e-6);
  check_close(nn::LogSigmoid()(x), each([](double v) { return -std::log1p(std::exp(-v)); }), 1e-6);
  check_close(nn::Softsign()(x), each([](double v) { return v / (1 + std::abs(v)); }));
  check_close(nn::Tanhshrink()(x), each([](double v) { return v - std::tanh(v); }), 1e-6);
  check_close(nn::Softshrink(1.0)(x), each([](double v) { return v > 1 ? v - 1 : v < -1 ? v + 1 : 0.0; }));
  check_close(nn::Hardshrink(1.0)(x), each([](double v) { return std::abs(v) > 1 ? v : 0.0; }));
  check_close(nn::Threshold(0.5, -9)(x), each([](double v) { return v > 0.5 ? v : -9.0; }));
  check_close(nn::Softplus(nn::SoftplusOptions().beta(2))(x),
              each([](double v) { return 2 * v > 20 ? v : std::log1p(std::exp(2 * v)) / 2; }), 1e-6);
  Tensor g = nn::GLU(0)(nn_test::tensor_of({1, 2, 0, -1}, {4}));
  check_close(g, {1 / (1 + std::exp(0.0)), 2 / (1 + std::exp(1.0))}, 1e-6);
  // In place: the input itself changes.
  Tensor y = x.clone();
  nn::Hardtanh(nn::HardtanhOptions().inplace(true))(y);
  check_close(y, each([](double v) { return std::min(std::max(v, -1.0), 1.0); }));
}

TEST_CASE("More activation modules print as torch's", "[nn]") {
  CHECK(printed(*nn::ELU()) == "ELU(alpha=1)");
  CHECK(printed(*nn::ELU(nn::ELUOptions().alpha(2).inplace(true))) == "ELU(alpha=2, inplace=true)");
  CHECK(printed(*nn::Hardtanh()) == "Hardtanh(min_val=-1, max_val=1)");
  CHECK(printed(*nn::ReLU6(true)) == "ReLU6(inplace=true)");
  CHECK(printed(*nn::Softshrink()) == "Softshrink(0.5)");
  CHECK(printed(*nn::Threshold(0.1, 20)) == "Threshold(threshold=0.1, value=20)");
  CHECK(printed(*nn::PReLU(nn::PReLUOptions().num_parameters(3))) == "PReLU(num_parameters=3)");
  CHECK(printed(*nn::Mish()) == "Mish()");
}

TEST_CASE("PReLU: one learned slope per channel", "[nn]") {
  nn::PReLU m(nn::PReLUOptions().num_parameters(2).init(0.1));
  REQUIRE(m->named_parameters().size() == 1);
  check_close(m->weight, {0.1, 0.1});
  Tensor x = nn_test::tensor_of({-1, 2, -3, -4}, {1, 2, 2}).to(kFloat32);
  Tensor out = m(x);
  check_close(out, {-0.1, 2, -0.3, -0.4});
  out.sum().backward();
  check_close(m->weight.grad(), {-1, -7});
  CHECK_THROWS_AS(m(randn({1, 3, 2})), Error);
}

TEST_CASE("RReLU: random slopes when training, their mean in eval", "[nn]") {
  manual_seed(0);
  nn::RReLU m(nn::RReLUOptions().lower(0.1).upper(0.3));
  Tensor x = -ones({500});
  for (double v : values(m(x))) CHECK((v <= -0.1 && v >= -0.3));
  m->eval();
  for (double v : values(m(x))) CHECK(std::abs(v + 0.2) < 1e-6);
}
