// Binary special-function kernels: hypot, logaddexp, logaddexp2, copysign, fmax,
// fmin, xlogy, heaviside, gcd, lcm, nextafter (formulas: kernels/special_math.h,
// shared with cuda/elementwise/special.cu).
#include <cmath>

#include "kernels/special_math.h"
#include "cpu/elementwise.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cpu {
namespace {

// f over the operands in dt, for the dtypes of the dispatch macro given.
#define EMBER_BINARY_IN(DISPATCH, dt, ...)                         \
  do {                                                             \
    BinarySetup s = setup_binary(c, dt, dt);                       \
    DISPATCH(dt, c.name(), [&] {                                   \
      using O = opmath_t<scalar_t>;                                \
      binary_op<scalar_t, scalar_t>(s.out(), s.operands, __VA_ARGS__); \
    });                                                            \
    s.output.finish();                                             \
  } while (0)

// Computed in result_type(self, other); integer results become the default float
// dtype (copysign, xlogy) or are refused by the op function (hypot, logaddexp, ...).
#define EMBER_FLOAT_BINARY(name, expr)                                            \
  void name##_kernel(OpCall& c) {                                                  \
    DType dt = float_dtype(result_type(c.in(0), c.in(1)));                         \
    EMBER_BINARY_IN(EMBER_DISPATCH_FLOATING, dt, [](O x, O y) { return expr; });   \
  }

EMBER_FLOAT_BINARY(hypot, std::hypot(x, y))
EMBER_FLOAT_BINARY(logaddexp, logaddexp_value(x, y))
EMBER_FLOAT_BINARY(logaddexp2, logaddexp2_value(x, y))
EMBER_FLOAT_BINARY(copysign, std::copysign(x, y))
EMBER_FLOAT_BINARY(xlogy, xlogy_value(x, y))
#undef EMBER_FLOAT_BINARY

void nextafter_kernel(OpCall& c) {
  DType dt = result_type(c.in(0), c.in(1));
  EMBER_BINARY_IN(EMBER_DISPATCH_FLOATING, dt, [](O x, O y) { return nextafter_value<scalar_t>(x, y); });
}

template <bool kMax>
void fextremum_kernel(OpCall& c) {
  DType dt = result_type(c.in(0), c.in(1));
  EMBER_BINARY_IN(EMBER_DISPATCH_ALL, dt, [](O x, O y) { return fextremum_value<kMax>(x, y); });
}

void heaviside_kernel(OpCall& c) {
  DType dt = result_type(c.in(0), c.in(1));
  EMBER_BINARY_IN(EMBER_DISPATCH_ALL, dt, [](O x, O v) { return heaviside_value(x, v); });
}

// Integer dtypes only (the op function refuses floats and bool).
#define EMBER_DISPATCH_INTS(dtype, op, ...) \
  switch (dtype) {                          \
    EMBER_INT_CASES(__VA_ARGS__)            \
    default: throw_unsupported_dtype(op, dtype); \
  }
void gcd_kernel(OpCall& c) {
  DType dt = result_type(c.in(0), c.in(1));
  EMBER_BINARY_IN(EMBER_DISPATCH_INTS, dt, [](O x, O y) { return gcd_value(x, y); });
}
void lcm_kernel(OpCall& c) {
  DType dt = result_type(c.in(0), c.in(1));
  EMBER_BINARY_IN(EMBER_DISPATCH_INTS, dt, [](O x, O y) { return lcm_value(x, y); });
}
#undef EMBER_DISPATCH_INTS
#undef EMBER_BINARY_IN

EMBER_REGISTER_KERNEL(hypot, CPU, hypot_kernel);
EMBER_REGISTER_KERNEL(logaddexp, CPU, logaddexp_kernel);
EMBER_REGISTER_KERNEL(logaddexp2, CPU, logaddexp2_kernel);
EMBER_REGISTER_KERNEL(copysign, CPU, copysign_kernel);
EMBER_REGISTER_KERNEL(xlogy, CPU, xlogy_kernel);
EMBER_REGISTER_KERNEL(nextafter, CPU, nextafter_kernel);
EMBER_REGISTER_KERNEL(fmax, CPU, fextremum_kernel<true>);
EMBER_REGISTER_KERNEL(fmin, CPU, fextremum_kernel<false>);
EMBER_REGISTER_KERNEL(heaviside, CPU, heaviside_kernel);
EMBER_REGISTER_KERNEL(gcd, CPU, gcd_kernel);
EMBER_REGISTER_KERNEL(lcm, CPU, lcm_kernel);

}  // namespace
}  // namespace ember::cpu
