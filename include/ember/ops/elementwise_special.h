// Elementwise special functions (torch.acos ... torch.nextafter, torch.special.*):
// free functions. Promotion, broadcasting and in-place rules are those of
// ember/ops/elementwise.h; integer and bool inputs of the float-only ops give the
// default float dtype.
#pragma once
#include <optional>

#include "ember/generated/elementwise_ops.h"  // this group's structured ops
#include "ember/tensor.h"

namespace ember {

// ---- unary (each with an in-place name_) -------------------------------------------------
#define EMBER_SPECIAL_UNARY(name)    \
  Tensor name(const Tensor& self);   \
  Tensor& name##_(Tensor& self);
EMBER_SPECIAL_UNARY(frac)      // x - trunc(x); float dtypes only
EMBER_SPECIAL_UNARY(deg2rad)
EMBER_SPECIAL_UNARY(rad2deg)
EMBER_SPECIAL_UNARY(sgn)       // sign (real dtypes)
#undef EMBER_SPECIAL_UNARY
Tensor special_i1(const Tensor& self);  // torch.special.i1: order 1
// n-th derivative of digamma (n = 0: digamma itself).
Tensor polygamma(int64_t n, const Tensor& self);
Tensor& polygamma_(Tensor& self, int64_t n);
// log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given.
Tensor logit(const Tensor& self, std::optional<double> eps = std::nullopt);
Tensor& logit_(Tensor& self, std::optional<double> eps = std::nullopt);
Tensor positive(const Tensor& self);  // self itself
Tensor isneginf(const Tensor& self);
Tensor isposinf(const Tensor& self);
Tensor isreal(const Tensor& self);    // all true (no complex dtypes)

// ---- binary ----------------------------------------------------------------------------------
Tensor hypot(const Tensor& self, const Tensor& other);
Tensor& hypot_(Tensor& self, const Tensor& other);
Tensor logaddexp(const Tensor& self, const Tensor& other);
Tensor logaddexp2(const Tensor& self, const Tensor& other);
Tensor copysign(const Tensor& self, const Tensor& other);
Tensor copysign(const Tensor& self, const Scalar& other);
Tensor& copysign_(Tensor& self, const Tensor& other);
Tensor& copysign_(Tensor& self, const Scalar& other);
Tensor fmax(const Tensor& self, const Tensor& other);  // nan only where both are nan
Tensor fmin(const Tensor& self, const Tensor& other);
Tensor xlogy(const Tensor& self, const Tensor& other);  // self * log(other), 0 where self == 0
Tensor xlogy(const Tensor& self, const Scalar& other);
Tensor xlogy(const Scalar& self, const Tensor& other);
Tensor& xlogy_(Tensor& self, const Tensor& other);
Tensor& xlogy_(Tensor& self, const Scalar& other);
Tensor heaviside(const Tensor& self, const Tensor& values);
Tensor& heaviside_(Tensor& self, const Tensor& values);
Tensor gcd(const Tensor& self, const Tensor& other);
Tensor& gcd_(Tensor& self, const Tensor& other);
Tensor lcm(const Tensor& self, const Tensor& other);
Tensor& lcm_(Tensor& self, const Tensor& other);
Tensor nextafter(const Tensor& self, const Tensor& other);
Tensor& nextafter_(Tensor& self, const Tensor& other);
// self ** exponent computed in float64 (the result is float64).
Tensor float_power(const Tensor& self, const Tensor& exponent);
Tensor float_power(const Tensor& self, const Scalar& exponent);
Tensor float_power(const Scalar& self, const Tensor& exponent);
Tensor& float_power_(Tensor& self, const Tensor& exponent);
Tensor& float_power_(Tensor& self, const Scalar& exponent);
Tensor ldexp(const Tensor& self, const Tensor& other);  // self * 2 ** other
Tensor& ldexp_(Tensor& self, const Tensor& other);

// ---- ternary ---------------------------------------------------------------------------------
// self + value * tensor1 * tensor2 (addcdiv: / tensor2; integer division is refused).
Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1);
Tensor& addcmul_(Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1);
Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1);
Tensor& addcdiv_(Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1);

}  // namespace ember
