// Tensor's methods for the elementwise special functions
// (include/ember/methods/elementwise.inc): each forwards to the free function.
#include "ember/ops/elementwise_special.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember {

#define EMBER_UNARY_METHOD(name)                                       \
  Tensor Tensor::name() const { return ember::name(*this); }           \
  Tensor& Tensor::name##_() { return ember::name##_(*this); }
EMBER_UNARY_METHOD(frac)
EMBER_UNARY_METHOD(deg2rad)
EMBER_UNARY_METHOD(rad2deg)
EMBER_UNARY_METHOD(sgn)
#undef EMBER_UNARY_METHOD

Tensor Tensor::polygamma(int64_t n) const { return ember::polygamma(n, *this); }
Tensor& Tensor::polygamma_(int64_t n) { return ember::polygamma_(*this, n); }
Tensor Tensor::logit(std::optional<double> eps) const { return ember::logit(*this, eps); }
Tensor& Tensor::logit_(std::optional<double> eps) { return ember::logit_(*this, eps); }
Tensor Tensor::positive() const { return ember::positive(*this); }
Tensor Tensor::isneginf() const { return ember::isneginf(*this); }
Tensor Tensor::isposinf() const { return ember::isposinf(*this); }
Tensor Tensor::isreal() const { return ember::isreal(*this); }

#define EMBER_BINARY_METHOD(name)                                                      \
  Tensor Tensor::name(const Tensor& other) const { return ember::name(*this, other); } \
  Tensor& Tensor::name##_(const Tensor& other) { return ember::name##_(*this, other); }
EMBER_BINARY_METHOD(hypot)
EMBER_BINARY_METHOD(copysign)
EMBER_BINARY_METHOD(xlogy)
EMBER_BINARY_METHOD(heaviside)
EMBER_BINARY_METHOD(gcd)
EMBER_BINARY_METHOD(lcm)
EMBER_BINARY_METHOD(nextafter)
EMBER_BINARY_METHOD(float_power)
EMBER_BINARY_METHOD(ldexp)
#undef EMBER_BINARY_METHOD
Tensor Tensor::logaddexp(const Tensor& other) const { return ember::logaddexp(*this, other); }
Tensor Tensor::logaddexp2(const Tensor& other) const { return ember::logaddexp2(*this, other); }
Tensor Tensor::fmax(const Tensor& other) const { return ember::fmax(*this, other); }
Tensor Tensor::fmin(const Tensor& other) const { return ember::fmin(*this, other); }
Tensor Tensor::float_power(const Scalar& exponent) const { return ember::float_power(*this, exponent); }
Tensor& Tensor::float_power_(const Scalar& exponent) { return ember::float_power_(*this, exponent); }

Tensor Tensor::addcmul(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) const {
  return ember::addcmul(*this, tensor1, tensor2, value);
}
Tensor& Tensor::addcmul_(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  return ember::addcmul_(*this, tensor1, tensor2, value);
}
Tensor Tensor::addcdiv(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) const {
  return ember::addcdiv(*this, tensor1, tensor2, value);
}
Tensor& Tensor::addcdiv_(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  return ember::addcdiv_(*this, tensor1, tensor2, value);
}

}  // namespace ember
