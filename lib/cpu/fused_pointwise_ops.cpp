// The CPU's formula table of fused pointwise programs (cpu/fused_pointwise_formula.h): each op a fused loop can
// run, with the per-element function its eager CPU kernel uses.
//
// Every formula here is the expression of the op's eager kernel (lib/cpu/unary.cpp,
// binary.cpp, pow.cpp, activation.cpp, activation_extra.cpp), written with the same shared
// functions (kernels/elementwise_math.h, kernels/activation_math.h, and cpu/vec_math.h
// where the eager float32 rows use them) and the same opmath type, so that a fused
// loop and the node's own kernel round alike. The structured ops' formulas are not
// repeated here: the code generator lists them from the op table
// (cpu/fused_structured_formulas.inc, expanded at the end of this file).
#include <cmath>
#include <string>
#include <type_traits>
#include <variant>

#include "cpu/vec_math.h"
#include "dispatch/op_ids/elementwise.h"
#include "cpu/fused_pointwise_formula.h"
#include "kernels/activation_math.h"
#include "kernels/elementwise_math.h"

namespace ember::cpu::fused {
namespace {

// float32 uses the vectorizable version where the eager float32 row does.
#define EMBER_FUSION_VEC_OR(vec_expr, std_expr)                     \
  if constexpr (std::is_same_v<decltype(x), float>) return vec_expr; \
  else return std_expr

using Formula = const PointwiseFormula*;

// ---- attribute readers: false when the attr is not a number (a malformed node) -----------

bool number_attr(const std::vector<Attr>& a, size_t i, double& out) {
  if (i >= a.size()) return false;
  const Attr::Value& v = a[i].value();
  if (auto* s = std::get_if<Scalar>(&v)) out = s->to_double();
  else if (auto* d = std::get_if<double>(&v)) out = *d;
  else if (auto* k = std::get_if<int64_t>(&v)) out = static_cast<double>(*k);
  else if (auto* b = std::get_if<bool>(&v)) out = *b ? 1.0 : 0.0;
  else return false;
  return true;
}
const std::string* string_attr(const std::vector<Attr>& a, size_t i) {
  if (i >= a.size()) return nullptr;
  return std::get_if<std::string>(&a[i].value());
}

// ---- unary formulas ----------------------------------------------------------------------

EMBER_FUSION_UNARY(f_neg, { return wrap_neg(x); });
EMBER_FUSION_UNARY(f_abs, { return abs_value(x); });
EMBER_FUSION_UNARY(f_sign, { return sign_value(x); });
EMBER_FUSION_UNARY(f_exp, { EMBER_FUSION_VEC_OR(::ember::cpu::vec::exp(x), std::exp(x)); });
EMBER_FUSION_UNARY(f_expm1, { return std::expm1(x); });
EMBER_FUSION_UNARY(f_log, { EMBER_FUSION_VEC_OR(::ember::cpu::vec::log(x), std::log(x)); });
EMBER_FUSION_UNARY(f_log1p, { EMBER_FUSION_VEC_OR(::ember::cpu::vec::log1p(x), std::log1p(x)); });
EMBER_FUSION_UNARY(f_log2, { return std::log2(x); });
EMBER_FUSION_UNARY(f_sqrt, { return std::sqrt(x); });
EMBER_FUSION_UNARY(f_rsqrt, { return decltype(x)(1) / std::sqrt(x); });
EMBER_FUSION_UNARY(f_reciprocal, { return decltype(x)(1) / x; });
EMBER_FUSION_UNARY(f_tan, { return std::tan(x); });
EMBER_FUSION_UNARY(f_tanh, { EMBER_FUSION_VEC_OR(::ember::cpu::vec::tanh(x), std::tanh(x)); });
EMBER_FUSION_UNARY(f_sigmoid, { EMBER_FUSION_VEC_OR(::ember::cpu::vec::sigmoid(x), sigmoid_value(x)); });
EMBER_FUSION_UNARY(f_erf, { EMBER_FUSION_VEC_OR(::ember::cpu::vec::erf(x), std::erf(x)); });
EMBER_FUSION_UNARY(f_floor, { return std::floor(x); });
EMBER_FUSION_UNARY(f_ceil, { return std::ceil(x); });
EMBER_FUSION_UNARY(f_trunc, { return std::trunc(x); });
EMBER_FUSION_UNARY(f_round, { return round_half_even(x); });
// p0: the scale 10^|decimals| (as the eager kernel computes it, in double).
EMBER_FUSION_UNARY(f_round_decimals, { return round_decimals(x, k.p0, false); });
EMBER_FUSION_UNARY(f_round_negative_decimals, { return round_decimals(x, k.p0, true); });
EMBER_FUSION_UNARY(f_relu, { return relu_value(x); });
EMBER_FUSION_UNARY(f_gelu, { EMBER_FUSION_VEC_OR(::ember::cpu::vec::gelu(x), gelu_value(x)); });
EMBER_FUSION_UNARY(f_gelu_tanh, {
  EMBER_FUSION_VEC_OR(::ember::cpu::vec::gelu_tanh(x), gelu_tanh_value(x));
});
EMBER_FUSION_UNARY(f_silu, { EMBER_FUSION_VEC_OR(::ember::cpu::vec::silu(x), silu_value(x)); });
// p0: beta, p1: threshold. The float32 expression is the eager kernel's vectorized one.
EMBER_FUSION_UNARY(f_softplus, {
  if constexpr (std::is_same_v<decltype(x), float>) {
    float bx = x * k.p0;
    float soft = ::ember::cpu::vec::log1p(::ember::cpu::vec::exp(bx)) / k.p0;
    return bx > k.p1 ? x : soft;
  } else {
    return softplus_value(x, k.p0, k.p1);
  }
});
EMBER_FUSION_UNARY(f_leaky_relu, { return leaky_relu_value(x, k.p0); });
// p0, p1, p2: elu's negcoef, poscoef, negiptcoef (EluParams).
EMBER_FUSION_UNARY(f_elu, {
  return elu_value(x, EluCoef<decltype(x)>{k.p0, k.p1, k.p2});
});
EMBER_FUSION_UNARY(f_hardtanh, { return hardtanh_value(x, k.p0, k.p1); });
EMBER_FUSION_UNARY(f_softshrink, { return softshrink_value(x, k.p0); });
EMBER_FUSION_UNARY(f_hardshrink, { return hardshrink_value(x, k.p0); });
EMBER_FUSION_UNARY(f_threshold, { return threshold_value(x, k.p0, k.p1); });

// ---- binary formulas ---------------------------------------------------------------------

EMBER_FUSION_BINARY(f_add, { return wrap_add(x, y); });
// p0: alpha.
EMBER_FUSION_BINARY(f_add_alpha, { return wrap_add(x, wrap_mul(k.p0, y)); });
EMBER_FUSION_BINARY(f_sub, { return wrap_sub(x, y); });
EMBER_FUSION_BINARY(f_sub_alpha, { return wrap_sub(x, wrap_mul(k.p0, y)); });
EMBER_FUSION_BINARY(f_mul, { return wrap_mul(x, y); });
EMBER_FUSION_BINARY(f_div, { return x / y; });
EMBER_FUSION_BINARY(f_div_trunc, { return std::trunc(x / y); });
EMBER_FUSION_BINARY(f_div_floor, { return div_floor_float(x, y); });
EMBER_FUSION_BINARY(f_remainder, { return rem_floor_float(x, y); });
EMBER_FUSION_BINARY(f_fmod, { return std::fmod(x, y); });
EMBER_FUSION_BINARY(f_maximum, { return extremum_value<true>(x, y); });
EMBER_FUSION_BINARY(f_minimum, { return extremum_value<false>(x, y); });
EMBER_FUSION_BINARY(f_atan2, { return std::atan2(x, y); });

// pow (pow.cpp): a tensor exponent is std::pow, a number exponent takes the kernel's fast
// paths for the usual exponents (compared as the kernel compares them: exactly).
EMBER_FUSION_BINARY_FN(PowArrays, { return std::pow(x, y); });
EMBER_FUSION_BINARY_FN(PowNumberExponent, {
  using T = decltype(x);
  if (y == T(2)) return x * x;
  if (y == T(3)) return x * x * x;
  if (y == T(1)) return x;
  if (y == T(0.5)) return std::sqrt(x);
  if (y == T(-0.5)) return T(1) / std::sqrt(x);
  if (y == T(-1)) return T(1) / x;
  if (y == T(-2)) return T(1) / (x * x);
  return std::pow(x, y);
});
static const PointwiseFormula f_pow =
    binary_formula_by_layout<PowArrays, PowArrays, PowNumberExponent>("f_pow", /*exact_scalars=*/true);

// ---- lowerings: which formula a node uses, and its attributes ------------------------------

// add / sub (self, other, alpha): alpha == 1 is the plain formula, as in the eager kernel.
Formula lower_alpha(const std::vector<Attr>& n, double* p, Formula plain, Formula scaled) {
  double alpha;
  if (!number_attr(n, 0, alpha)) return nullptr;
  p[0] = alpha;
  return alpha == 1.0 ? plain : scaled;
}

}  // namespace

EMBER_FUSION_SIMPLE_OP(neg, f_neg);
EMBER_FUSION_SIMPLE_OP(abs, f_abs);
EMBER_FUSION_SIMPLE_OP(sign, f_sign);
EMBER_FUSION_SIMPLE_OP(exp, f_exp);
EMBER_FUSION_SIMPLE_OP(expm1, f_expm1);
EMBER_FUSION_SIMPLE_OP(log, f_log);
EMBER_FUSION_SIMPLE_OP(log1p, f_log1p);
EMBER_FUSION_SIMPLE_OP(log2, f_log2);
EMBER_FUSION_SIMPLE_OP(sqrt, f_sqrt);
EMBER_FUSION_SIMPLE_OP(rsqrt, f_rsqrt);
EMBER_FUSION_SIMPLE_OP(reciprocal, f_reciprocal);
EMBER_FUSION_SIMPLE_OP(tan, f_tan);
EMBER_FUSION_SIMPLE_OP(tanh, f_tanh);
EMBER_FUSION_SIMPLE_OP(sigmoid, f_sigmoid);
EMBER_FUSION_SIMPLE_OP(erf, f_erf);
EMBER_FUSION_SIMPLE_OP(floor, f_floor);
EMBER_FUSION_SIMPLE_OP(ceil, f_ceil);
EMBER_FUSION_SIMPLE_OP(trunc, f_trunc);
EMBER_FUSION_SIMPLE_OP(relu, f_relu);
EMBER_FUSION_SIMPLE_OP(silu, f_silu);
EMBER_FUSION_SIMPLE_OP(mul, f_mul);
EMBER_FUSION_SIMPLE_OP(remainder, f_remainder);
EMBER_FUSION_SIMPLE_OP(fmod, f_fmod);
EMBER_FUSION_SIMPLE_OP(maximum, f_maximum);
EMBER_FUSION_SIMPLE_OP(minimum, f_minimum);
EMBER_FUSION_SIMPLE_OP(atan2, f_atan2);
EMBER_FUSION_SIMPLE_OP(pow, f_pow);
// sin and cos are left out: their eager float32 rows pick the polynomial or std:: per
// 256-element block of the row (unary.cpp), which a fused block cannot reproduce.

EMBER_FUSION_OP(add, [](const std::vector<Attr>& n, double* p) { return lower_alpha(n, p, &f_add, &f_add_alpha); });
EMBER_FUSION_OP(sub, [](const std::vector<Attr>& n, double* p) { return lower_alpha(n, p, &f_sub, &f_sub_alpha); });

EMBER_FUSION_OP(div, [](const std::vector<Attr>& n, double* p) -> Formula {
  if (n.empty() || n[0].is_none()) return &f_div;
  const std::string* mode = string_attr(n, 0);
  if (!mode) return nullptr;
  if (*mode == "trunc") return &f_div_trunc;
  if (*mode == "floor") return &f_div_floor;
  return nullptr;
});

EMBER_FUSION_OP(round, [](const std::vector<Attr>& n, double* p) -> Formula {
  if (n.empty()) return &f_round;
  if (n.size() != 1) return nullptr;
  const int64_t* decimals = std::get_if<int64_t>(&n[0].value());
  if (!decimals) return nullptr;
  if (*decimals == 0) return &f_round;
  double magnitude = static_cast<double>(*decimals);
  bool negative = *decimals < 0;
  p[0] = std::pow(10.0, negative ? -magnitude : magnitude);
  return negative ? &f_round_negative_decimals : &f_round_decimals;
});

EMBER_FUSION_OP(gelu, [](const std::vector<Attr>& n, double* p) -> Formula {
  if (n.empty()) return &f_gelu;
  const std::string* approximate = string_attr(n, 0);
  if (!approximate) return nullptr;
  if (*approximate == "none") return &f_gelu;
  if (*approximate == "tanh") return &f_gelu_tanh;
  return nullptr;
});

EMBER_FUSION_OP(softplus, [](const std::vector<Attr>& n, double* p) -> Formula {
  return number_attr(n, 0, p[0]) && number_attr(n, 1, p[1]) ? &f_softplus : nullptr;
});
EMBER_FUSION_OP(leaky_relu, [](const std::vector<Attr>& n, double* p) -> Formula {
  return number_attr(n, 0, p[0]) ? &f_leaky_relu : nullptr;
});
EMBER_FUSION_OP(elu, [](const std::vector<Attr>& n, double* p) -> Formula {
  double alpha, scale, input_scale;
  if (!number_attr(n, 0, alpha) || !number_attr(n, 1, scale) || !number_attr(n, 2, input_scale))
    return nullptr;
  EluParams k = EluParams::from(alpha, scale, input_scale);
  p[0] = k.negcoef;
  p[1] = k.poscoef;
  p[2] = k.negiptcoef;
  return &f_elu;
});
EMBER_FUSION_OP(hardtanh, [](const std::vector<Attr>& n, double* p) -> Formula {
  return number_attr(n, 0, p[0]) && number_attr(n, 1, p[1]) ? &f_hardtanh : nullptr;
});
// lambd rounded to the input's dtype by the eager kernel (rounded_to): for float32 and float64 that is
// what converting the double to the compute type does.
EMBER_FUSION_OP(softshrink, [](const std::vector<Attr>& n, double* p) -> Formula {
  return number_attr(n, 0, p[0]) ? &f_softshrink : nullptr;
});
EMBER_FUSION_OP(hardshrink, [](const std::vector<Attr>& n, double* p) -> Formula {
  return number_attr(n, 0, p[0]) ? &f_hardshrink : nullptr;
});
EMBER_FUSION_OP(threshold, [](const std::vector<Attr>& n, double* p) -> Formula {
  return number_attr(n, 0, p[0]) && number_attr(n, 1, p[1]) ? &f_threshold : nullptr;
});

}  // namespace ember::cpu::fused

// ---- the structured ops, listed by the code generator from the op table ------------------
// Each row's formula, in the eager structured kernel's form (float_unary: the result of the
// formula on the opmath value, in the input's dtype), and a lowering without attributes.
namespace ember::cpu::fused {
namespace {
// Structured ops left out: their eager rows inline the formula into each ISA clone (FMA
// contraction in the AVX2/AVX-512 builds), where the block loop calls it out of line, and
// forcing it inline (flatten) makes the larger special functions differ instead; a fused
// run of these would differ from eager in the last bits (up to 3 ulp). Kept out so that a
// fused run is always bit-identical; test_fusion.cpp checks every other op.
bool rounds_unlike_eager(OpId op) { return op == opid::erfinv || op == opid::special_ndtri; }
}  // namespace
}  // namespace ember::cpu::fused

#define EMBER_FUSION_STRUCTURED(name, formula)                                              \
  namespace ember::cpu::fused {                                                           \
  EMBER_FUSION_UNARY(f_structured_##name, { return static_cast<decltype(x)>(formula(x)); }); \
  static PointwiseOpRegistrar ember_fusion_op_##name(                                       \
      opid::name, rounds_unlike_eager(opid::name)                                           \
                      ? nullptr                                                             \
                      : static_cast<LowerFn>([](const std::vector<Attr>&, double*) -> Formula {          \
                          return &f_structured_##name;                                      \
                        }));                                                                \
  }
#include "cpu/fused_structured_formulas.inc"
#undef EMBER_FUSION_STRUCTURED
