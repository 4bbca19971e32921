// pow: tensor ** tensor, tensor ** number (with fast paths for the common
// exponents, as PyTorch has), number ** tensor.
#include <cmath>

#include "cpu/elementwise.h"
#include "kernels/int_math.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cpu {
namespace {

// x ** e for a float exponent known up front: the usual small exponents avoid std::pow.
template <typename T>
void pow_float_exponent(const BinarySetup& s, double e) {
  using O = opmath_t<T>;
  auto run = [&](auto f) { unary_loop(s.out(), s.operands.a, [f](T x) -> T { return convert<T>(f(O(x))); }); };
  if (e == 2.0) run([](O x) { return x * x; });
  else if (e == 3.0) run([](O x) { return x * x * x; });
  else if (e == 1.0) run([](O x) { return x; });
  else if (e == 0.5) run([](O x) { return std::sqrt(x); });
  else if (e == -0.5) run([](O x) { return O(1) / std::sqrt(x); });
  else if (e == -1.0) run([](O x) { return O(1) / x; });
  else if (e == -2.0) run([](O x) { return O(1) / (x * x); });
  else {
    O p = static_cast<O>(e);
    run([p](O x) { return std::pow(x, p); });
  }
}

template <typename T>
void pow_typed(const BinarySetup& s) {
  using O = opmath_t<T>;
  if constexpr (std::is_same_v<T, bool>) {
    binary_op<T, T>(s.out(), s.operands, [](bool x, bool y) { return x || !y; });
  } else if constexpr (std::is_floating_point_v<O>) {
    if (s.operands.scalar == 2)
      pow_float_exponent<T>(s, scalar_value<double>(s.operands.b));
    else
      binary_op<T, T>(s.out(), s.operands, [](O x, O y) { return std::pow(x, y); });
  } else {
    binary_op<T, T>(s.out(), s.operands, [](O x, O y) { return powi(x, y); });
  }
}

void pow_kernel(OpCall& c) {
  DType dt = result_type(c.in(0), c.in(1));
  BinarySetup s = setup_binary(c, dt, dt);
  EMBER_DISPATCH_ALL(dt, "pow", [&] { pow_typed<scalar_t>(s); });
  s.output.finish();
}

EMBER_REGISTER_KERNEL(pow, CPU, pow_kernel);

}  // namespace
}  // namespace ember::cpu
