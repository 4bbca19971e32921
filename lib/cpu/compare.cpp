// Comparisons (eq, ne, lt, le, gt, ge) and logical and/or/xor: computed in the
// inputs' promoted dtype, written as bool (Note [Elementwise kernels]).
#include "cpu/elementwise.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cpu {
namespace {

template <typename F>
void bool_binary(OpCall& c, const F& f) {
  DType dt = result_type(c.in(0), c.in(1));
  BinarySetup s = setup_binary(c, dt, kBool, /*round_number=*/true);
  EMBER_DISPATCH_ALL(dt, c.name(), [&] {
    using O = opmath_t<scalar_t>;
    binary_op<scalar_t, bool>(s.out(), s.operands, [f](O x, O y) -> bool { return f(x, y); });
  });
  s.output.finish();
}

void eq_kernel(OpCall& c) { bool_binary(c, [](auto x, auto y) { return x == y; }); }
void ne_kernel(OpCall& c) { bool_binary(c, [](auto x, auto y) { return x != y; }); }
void lt_kernel(OpCall& c) { bool_binary(c, [](auto x, auto y) { return x < y; }); }
void le_kernel(OpCall& c) { bool_binary(c, [](auto x, auto y) { return x <= y; }); }
void gt_kernel(OpCall& c) { bool_binary(c, [](auto x, auto y) { return x > y; }); }
void ge_kernel(OpCall& c) { bool_binary(c, [](auto x, auto y) { return x >= y; }); }

// A value is true when it is not zero (nan is true).
template <typename T>
bool truth(T x) { return x != T(0); }

void logical_and_kernel(OpCall& c) { bool_binary(c, [](auto x, auto y) { return truth(x) && truth(y); }); }
void logical_or_kernel(OpCall& c) { bool_binary(c, [](auto x, auto y) { return truth(x) || truth(y); }); }
void logical_xor_kernel(OpCall& c) { bool_binary(c, [](auto x, auto y) { return truth(x) != truth(y); }); }

EMBER_REGISTER_KERNEL(eq, CPU, eq_kernel);
EMBER_REGISTER_KERNEL(ne, CPU, ne_kernel);
EMBER_REGISTER_KERNEL(lt, CPU, lt_kernel);
EMBER_REGISTER_KERNEL(le, CPU, le_kernel);
EMBER_REGISTER_KERNEL(gt, CPU, gt_kernel);
EMBER_REGISTER_KERNEL(ge, CPU, ge_kernel);
EMBER_REGISTER_KERNEL(logical_and, CPU, logical_and_kernel);
EMBER_REGISTER_KERNEL(logical_or, CPU, logical_or_kernel);
EMBER_REGISTER_KERNEL(logical_xor, CPU, logical_xor_kernel);

}  // namespace
}  // namespace ember::cpu
