// Unary math kernels: neg ... round (Note [Elementwise kernels] in
// kernels/elementwise_setup.h). The predicates isnan, isinf, isfinite, logical_not are
// structured (generated from their rows).
#include <cmath>
#include <limits>

#include "kernels/elementwise_math.h"
#include "cpu/elementwise.h"
#include "cpu/unary_helpers.h"
#include "cpu/vec_math.h"
#include "dispatch/args/elementwise.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cpu {
namespace {

// -x and |x| wrap around for the most negative integer instead of overflowing.
void neg_kernel(OpCall& c) { same_dtype_unary<false>(c, [](auto x) { return wrap_neg(x); }); }
void abs_kernel(OpCall& c) { same_dtype_unary<false>(c, [](auto x) { return abs_value(x); }); }
void sign_kernel(OpCall& c) { same_dtype_unary<true>(c, [](auto x) { return sign_value(x); }); }

void exp_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::exp(x); }, [](float x) { return vec::exp(x); }); }
void expm1_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::expm1(x); }); }
void log_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::log(x); }, [](float x) { return vec::log(x); }); }
void log1p_kernel(OpCall& c) {
  float_unary(c, [](auto x) { return std::log1p(x); }, [](float x) { return vec::log1p(x); });
}
void log2_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::log2(x); }); }
void tan_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::tan(x); }); }
void tanh_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::tanh(x); }, [](float x) { return vec::tanh(x); }); }
void erf_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::erf(x); }, [](float x) { return vec::erf(x); }); }

// sqrt and division vectorize as they are (-fno-math-errno), so no vec:: versions.
void sqrt_kernel(OpCall& c) { float_unary(c, [](auto x) { return std::sqrt(x); }); }
void rsqrt_kernel(OpCall& c) {
  float_unary(c, [](auto x) { return decltype(x)(1) / std::sqrt(x); });
}
void reciprocal_kernel(OpCall& c) { float_unary(c, [](auto x) { return decltype(x)(1) / x; }); }

void sigmoid_kernel(OpCall& c) {
  float_unary(c, [](auto x) { return sigmoid_value(x); }, [](float x) { return vec::sigmoid(x); });
}

// Dense float32 rows of sin and cos: the vectorized polynomial, except in blocks
// holding an argument too large for its range reduction, which use std::.
template <bool kCos>
EMBER_TARGET_CLONES void sincos_row(float* out, const float* in, int64_t n) {
  constexpr int64_t kBlock = 256;
  for (int64_t b = 0; b < n; b += kBlock) {
    int64_t e = std::min(n, b + kBlock);
    // The largest |x| of the block, compared as bits (an integer max vectorizes; nan counts as large).
    uint32_t top = 0;
    for (int64_t i = b; i < e; ++i) top = std::max(top, vec::as_bits(in[i]) & 0x7fffffffu);
    bool large = top > vec::as_bits(vec::kSinCosMaxArg);
    if (!large && out == in) {  // one pointer, so the loop vectorizes in place too
      for (int64_t i = b; i < e; ++i) out[i] = kCos ? vec::cos(out[i]) : vec::sin(out[i]);
    } else if (!large) {
      for (int64_t i = b; i < e; ++i) out[i] = kCos ? vec::cos(in[i]) : vec::sin(in[i]);
    } else {
      for (int64_t i = b; i < e; ++i) out[i] = kCos ? std::cos(in[i]) : std::sin(in[i]);
    }
  }
}

float sin_scalar(float x) { return vec::abs(x) <= vec::kSinCosMaxArg ? vec::sin(x) : std::sin(x); }
float cos_scalar(float x) { return vec::abs(x) <= vec::kSinCosMaxArg ? vec::cos(x) : std::cos(x); }

void sin_kernel(OpCall& c) {
  float_unary(c, [](auto x) { return std::sin(x); }, [](float x) { return sin_scalar(x); },
              [](float* o, const float* x, int64_t n) { sincos_row<false>(o, x, n); });
}
void cos_kernel(OpCall& c) {
  float_unary(c, [](auto x) { return std::cos(x); }, [](float x) { return cos_scalar(x); },
              [](float* o, const float* x, int64_t n) { sincos_row<true>(o, x, n); });
}

// Rounding: integer tensors come back as they are (a copy).
template <typename F>
void rounding_unary(OpCall& c, const F& f) {
  same_dtype_unary<false>(c, [f](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>) return f(x);
    else return x;
  });
}

void floor_kernel(OpCall& c) { rounding_unary(c, [](auto x) { return std::floor(x); }); }
void ceil_kernel(OpCall& c) { rounding_unary(c, [](auto x) { return std::ceil(x); }); }
void trunc_kernel(OpCall& c) { rounding_unary(c, [](auto x) { return std::trunc(x); }); }

// Half to even; with decimals, PyTorch's formula in opmath (kernels/elementwise_math.h).
void round_kernel(OpCall& c) {
  const RoundArgs a = RoundArgs::from(c);
  if (a.decimals == 0) return rounding_unary(c, [](auto x) { return round_half_even(x); });
  bool negative = a.decimals < 0;
  // Negated as a double: -INT64_MIN does not fit an int64_t.
  const double magnitude = static_cast<double>(a.decimals);
  double scale = std::pow(10.0, negative ? -magnitude : magnitude);
  rounding_unary(c, [negative, scale](auto x) {
    using T = decltype(x);
    return round_decimals(x, static_cast<T>(scale), negative);
  });
}

EMBER_REGISTER_KERNEL(neg, CPU, neg_kernel);
EMBER_REGISTER_KERNEL(abs, CPU, abs_kernel);
EMBER_REGISTER_KERNEL(sign, CPU, sign_kernel);
EMBER_REGISTER_KERNEL(exp, CPU, exp_kernel);
EMBER_REGISTER_KERNEL(expm1, CPU, expm1_kernel);
EMBER_REGISTER_KERNEL(log, CPU, log_kernel);
EMBER_REGISTER_KERNEL(log1p, CPU, log1p_kernel);
EMBER_REGISTER_KERNEL(log2, CPU, log2_kernel);
EMBER_REGISTER_KERNEL(sqrt, CPU, sqrt_kernel);
EMBER_REGISTER_KERNEL(rsqrt, CPU, rsqrt_kernel);
EMBER_REGISTER_KERNEL(reciprocal, CPU, reciprocal_kernel);
EMBER_REGISTER_KERNEL(sin, CPU, sin_kernel);
EMBER_REGISTER_KERNEL(cos, CPU, cos_kernel);
EMBER_REGISTER_KERNEL(tan, CPU, tan_kernel);
EMBER_REGISTER_KERNEL(tanh, CPU, tanh_kernel);
EMBER_REGISTER_KERNEL(sigmoid, CPU, sigmoid_kernel);
EMBER_REGISTER_KERNEL(erf, CPU, erf_kernel);
EMBER_REGISTER_KERNEL(floor, CPU, floor_kernel);
EMBER_REGISTER_KERNEL(ceil, CPU, ceil_kernel);
EMBER_REGISTER_KERNEL(trunc, CPU, trunc_kernel);
EMBER_REGISTER_KERNEL(round, CPU, round_kernel);

}  // namespace
}  // namespace ember::cpu
