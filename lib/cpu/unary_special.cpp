// Unary special-function kernels: inverse trigonometric and hyperbolic functions,
// erfc, erfinv, lgamma, digamma, polygamma, log10, exp2, sinc, i0, i1, frac, signbit
// (formulas: core/special_math.h, shared with cuda/elementwise/special.cu).
#include <cmath>

#include "core/special_math.h"
#include "cpu/elementwise.h"
#include "cpu/unary_helpers.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cpu {
namespace {

void acos_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::acos(x); }); }
void asin_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::asin(x); }); }
void atan_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::atan(x); }); }
void sinh_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::sinh(x); }); }
void cosh_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::cosh(x); }); }
void asinh_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::asinh(x); }); }
void acosh_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::acosh(x); }); }
void atanh_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::atanh(x); }); }
void erfc_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::erfc(x); }); }
void erfinv_kernel(OpCall& c) { float_unary(c, [](auto x) { return erfinv_value(x); }); }
void lgamma_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::lgamma(x); }); }
void digamma_kernel(OpCall& c) { float_unary(c, [](auto x) { return digamma_value(x); }); }
void log10_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::log10(x); }); }
void exp2_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::exp2(x); }); }
void sinc_kernel(OpCall& c) { float_unary(c, [](auto x) { return sinc_value(x); }); }
void i0_kernel(OpCall& c) { float_unary(c, [](auto x) { return i0_value(x); }); }
void i1_kernel(OpCall& c) { float_unary(c, [](auto x) { return i1_value(x); }); }

void polygamma_kernel(OpCall& c) {
  int64_t n = c.attr(0).to_int();
  float_unary(c, [n](auto x) { return polygamma_value(n, x); });
}

// float dtypes only (the op function refuses the others).
void frac_kernel(OpCall& c) { float_unary(c, [](auto x) { return x - std::trunc(x); }); }

void signbit_kernel(OpCall& c) { predicate_unary(c, [](auto x) { return signbit_value(x); }); }

EMBER_REGISTER_KERNEL(acos, CPU, acos_kernel);
EMBER_REGISTER_KERNEL(asin, CPU, asin_kernel);
EMBER_REGISTER_KERNEL(atan, CPU, atan_kernel);
EMBER_REGISTER_KERNEL(sinh, CPU, sinh_kernel);
EMBER_REGISTER_KERNEL(cosh, CPU, cosh_kernel);
EMBER_REGISTER_KERNEL(asinh, CPU, asinh_kernel);
EMBER_REGISTER_KERNEL(acosh, CPU, acosh_kernel);
EMBER_REGISTER_KERNEL(atanh, CPU, atanh_kernel);
EMBER_REGISTER_KERNEL(erfc, CPU, erfc_kernel);
EMBER_REGISTER_KERNEL(erfinv, CPU, erfinv_kernel);
EMBER_REGISTER_KERNEL(lgamma, CPU, lgamma_kernel);
EMBER_REGISTER_KERNEL(digamma, CPU, digamma_kernel);
EMBER_REGISTER_KERNEL(polygamma, CPU, polygamma_kernel);
EMBER_REGISTER_KERNEL(log10, CPU, log10_kernel);
EMBER_REGISTER_KERNEL(exp2, CPU, exp2_kernel);
EMBER_REGISTER_KERNEL(sinc, CPU, sinc_kernel);
EMBER_REGISTER_KERNEL(i0, CPU, i0_kernel);
EMBER_REGISTER_KERNEL(special_i1, CPU, i1_kernel);
EMBER_REGISTER_KERNEL(frac, CPU, frac_kernel);
EMBER_REGISTER_KERNEL(signbit, CPU, signbit_kernel);

}  // namespace
}  // namespace ember::cpu
