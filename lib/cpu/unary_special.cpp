// Unary special-function kernels of the rows that are not structured: polygamma (an
// attr), i1, frac (formulas: kernels/special_math.h, shared with
// cuda/elementwise/special.cu). acos ... i0 and signbit are generated from their rows.
#include <cmath>

#include "kernels/special_math.h"
#include "cpu/elementwise.h"
#include "cpu/unary_helpers.h"
#include "dispatch/args/elementwise.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cpu {
namespace {

void i1_kernel(OpCall& c) { float_unary(c, [](auto x) { return i1_value(x); }); }

void polygamma_kernel(OpCall& c) {
  const PolygammaArgs a = PolygammaArgs::from(c);
  float_unary(c, [a](auto x) { return polygamma_value(a.n, x); });
}

// float dtypes only (the op function refuses the others).
void frac_kernel(OpCall& c) { float_unary(c, [](auto x) { return x - std::trunc(x); }); }


EMBER_REGISTER_KERNEL(polygamma, CPU, polygamma_kernel);
EMBER_REGISTER_KERNEL(special_i1, CPU, i1_kernel);
EMBER_REGISTER_KERNEL(frac, CPU, frac_kernel);

}  // namespace
}  // namespace ember::cpu
