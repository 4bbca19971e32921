// Tensor's elementwise methods (include/ember/methods/elementwise.inc) and the
// C++ operators: each forwards to the free function of the same name.
#include "ember/ops/elementwise.h"

#include "ember/ops/factories.h"

namespace ember {

// ---- unary --------------------------------------------------------------------------------
Tensor Tensor::neg() const { return ember::neg(*this); }
Tensor& Tensor::neg_() { return ember::neg_(*this); }
Tensor Tensor::abs() const { return ember::abs(*this); }
Tensor& Tensor::abs_() { return ember::abs_(*this); }
Tensor Tensor::sign() const { return ember::sign(*this); }
Tensor& Tensor::sign_() { return ember::sign_(*this); }
Tensor Tensor::exp() const { return ember::exp(*this); }
Tensor& Tensor::exp_() { return ember::exp_(*this); }
Tensor Tensor::expm1() const { return ember::expm1(*this); }
Tensor& Tensor::expm1_() { return ember::expm1_(*this); }
Tensor Tensor::log() const { return ember::log(*this); }
Tensor& Tensor::log_() { return ember::log_(*this); }
Tensor Tensor::log1p() const { return ember::log1p(*this); }
Tensor& Tensor::log1p_() { return ember::log1p_(*this); }
Tensor Tensor::log2() const { return ember::log2(*this); }
Tensor& Tensor::log2_() { return ember::log2_(*this); }
Tensor Tensor::sqrt() const { return ember::sqrt(*this); }
Tensor& Tensor::sqrt_() { return ember::sqrt_(*this); }
Tensor Tensor::rsqrt() const { return ember::rsqrt(*this); }
Tensor& Tensor::rsqrt_() { return ember::rsqrt_(*this); }
Tensor Tensor::reciprocal() const { return ember::reciprocal(*this); }
Tensor& Tensor::reciprocal_() { return ember::reciprocal_(*this); }
Tensor Tensor::square() const { return ember::square(*this); }
Tensor& Tensor::square_() { return ember::square_(*this); }
Tensor Tensor::sin() const { return ember::sin(*this); }
Tensor& Tensor::sin_() { return ember::sin_(*this); }
Tensor Tensor::cos() const { return ember::cos(*this); }
Tensor& Tensor::cos_() { return ember::cos_(*this); }
Tensor Tensor::tan() const { return ember::tan(*this); }
Tensor& Tensor::tan_() { return ember::tan_(*this); }
Tensor Tensor::tanh() const { return ember::tanh(*this); }
Tensor& Tensor::tanh_() { return ember::tanh_(*this); }
Tensor Tensor::sigmoid() const { return ember::sigmoid(*this); }
Tensor& Tensor::sigmoid_() { return ember::sigmoid_(*this); }
Tensor Tensor::erf() const { return ember::erf(*this); }
Tensor& Tensor::erf_() { return ember::erf_(*this); }
Tensor Tensor::floor() const { return ember::floor(*this); }
Tensor& Tensor::floor_() { return ember::floor_(*this); }
Tensor Tensor::ceil() const { return ember::ceil(*this); }
Tensor& Tensor::ceil_() { return ember::ceil_(*this); }
Tensor Tensor::trunc() const { return ember::trunc(*this); }
Tensor& Tensor::trunc_() { return ember::trunc_(*this); }
Tensor Tensor::relu() const { return ember::relu(*this); }
Tensor& Tensor::relu_() { return ember::relu_(*this); }
Tensor Tensor::bitwise_not() const { return ember::bitwise_not(*this); }
Tensor& Tensor::bitwise_not_() { return ember::bitwise_not_(*this); }
Tensor Tensor::round(int64_t decimals) const { return ember::round(*this, decimals); }
Tensor& Tensor::round_(int64_t decimals) { return ember::round_(*this, decimals); }

Tensor Tensor::clamp(const std::optional<Scalar>& min, const std::optional<Scalar>& max) const {
  return ember::clamp(*this, min, max);
}
Tensor& Tensor::clamp_(const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return ember::clamp_(*this, min, max);
}
Tensor Tensor::clamp(const Tensor& min, const Tensor& max) const { return ember::clamp(*this, min, max); }
Tensor& Tensor::clamp_(const Tensor& min, const Tensor& max) { return ember::clamp_(*this, min, max); }
Tensor Tensor::clamp_min(const Scalar& min) const { return ember::clamp_min(*this, min); }
Tensor& Tensor::clamp_min_(const Scalar& min) { return ember::clamp_min_(*this, min); }
Tensor Tensor::clamp_max(const Scalar& max) const { return ember::clamp_max(*this, max); }
Tensor& Tensor::clamp_max_(const Scalar& max) { return ember::clamp_max_(*this, max); }
Tensor Tensor::clip(const std::optional<Scalar>& min, const std::optional<Scalar>& max) const {
  return ember::clip(*this, min, max);
}
Tensor Tensor::nan_to_num(std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf) const {
  return ember::nan_to_num(*this, nan, posinf, neginf);
}
Tensor& Tensor::nan_to_num_(std::optional<double> nan, std::optional<double> posinf,
                            std::optional<double> neginf) {
  return ember::nan_to_num_(*this, nan, posinf, neginf);
}

// ---- binary ---------------------------------------------------------------------------------
Tensor Tensor::add(const Tensor& o, const Scalar& alpha) const { return ember::add(*this, o, alpha); }
Tensor Tensor::add(const Scalar& o, const Scalar& alpha) const { return ember::add(*this, o, alpha); }
Tensor& Tensor::add_(const Tensor& o, const Scalar& alpha) { return ember::add_(*this, o, alpha); }
Tensor& Tensor::add_(const Scalar& o, const Scalar& alpha) { return ember::add_(*this, o, alpha); }
Tensor Tensor::sub(const Tensor& o, const Scalar& alpha) const { return ember::sub(*this, o, alpha); }
Tensor Tensor::sub(const Scalar& o, const Scalar& alpha) const { return ember::sub(*this, o, alpha); }
Tensor& Tensor::sub_(const Tensor& o, const Scalar& alpha) { return ember::sub_(*this, o, alpha); }
Tensor& Tensor::sub_(const Scalar& o, const Scalar& alpha) { return ember::sub_(*this, o, alpha); }
Tensor Tensor::mul(const Tensor& o) const { return ember::mul(*this, o); }
Tensor Tensor::mul(const Scalar& o) const { return ember::mul(*this, o); }
Tensor& Tensor::mul_(const Tensor& o) { return ember::mul_(*this, o); }
Tensor& Tensor::mul_(const Scalar& o) { return ember::mul_(*this, o); }
Tensor Tensor::div(const Tensor& o, const std::optional<std::string>& mode) const {
  return ember::div(*this, o, mode);
}
Tensor Tensor::div(const Scalar& o, const std::optional<std::string>& mode) const {
  return ember::div(*this, o, mode);
}
Tensor& Tensor::div_(const Tensor& o, const std::optional<std::string>& mode) {
  return ember::div_(*this, o, mode);
}
Tensor& Tensor::div_(const Scalar& o, const std::optional<std::string>& mode) {
  return ember::div_(*this, o, mode);
}
Tensor Tensor::remainder(const Tensor& o) const { return ember::remainder(*this, o); }
Tensor Tensor::remainder(const Scalar& o) const { return ember::remainder(*this, o); }
Tensor& Tensor::remainder_(const Tensor& o) { return ember::remainder_(*this, o); }
Tensor Tensor::fmod(const Tensor& o) const { return ember::fmod(*this, o); }
Tensor Tensor::fmod(const Scalar& o) const { return ember::fmod(*this, o); }
Tensor& Tensor::fmod_(const Tensor& o) { return ember::fmod_(*this, o); }
Tensor Tensor::pow(const Tensor& e) const { return ember::pow(*this, e); }
Tensor Tensor::pow(const Scalar& e) const { return ember::pow(*this, e); }
Tensor& Tensor::pow_(const Tensor& e) { return ember::pow_(*this, e); }
Tensor& Tensor::pow_(const Scalar& e) { return ember::pow_(*this, e); }
Tensor Tensor::maximum(const Tensor& o) const { return ember::maximum(*this, o); }
Tensor Tensor::minimum(const Tensor& o) const { return ember::minimum(*this, o); }
Tensor Tensor::atan2(const Tensor& o) const { return ember::atan2(*this, o); }
Tensor Tensor::lerp(const Tensor& end, const Scalar& w) const { return ember::lerp(*this, end, w); }
Tensor Tensor::lerp(const Tensor& end, const Tensor& w) const { return ember::lerp(*this, end, w); }
Tensor& Tensor::lerp_(const Tensor& end, const Scalar& w) { return ember::lerp_(*this, end, w); }

Tensor Tensor::eq(const Tensor& o) const { return ember::eq(*this, o); }
Tensor Tensor::eq(const Scalar& o) const { return ember::eq(*this, o); }
Tensor Tensor::ne(const Tensor& o) const { return ember::ne(*this, o); }
Tensor Tensor::ne(const Scalar& o) const { return ember::ne(*this, o); }
Tensor Tensor::lt(const Tensor& o) const { return ember::lt(*this, o); }
Tensor Tensor::lt(const Scalar& o) const { return ember::lt(*this, o); }
Tensor Tensor::le(const Tensor& o) const { return ember::le(*this, o); }
Tensor Tensor::le(const Scalar& o) const { return ember::le(*this, o); }
Tensor Tensor::gt(const Tensor& o) const { return ember::gt(*this, o); }
Tensor Tensor::gt(const Scalar& o) const { return ember::gt(*this, o); }
Tensor Tensor::ge(const Tensor& o) const { return ember::ge(*this, o); }
Tensor Tensor::ge(const Scalar& o) const { return ember::ge(*this, o); }
Tensor Tensor::logical_and(const Tensor& o) const { return ember::logical_and(*this, o); }
Tensor Tensor::logical_or(const Tensor& o) const { return ember::logical_or(*this, o); }
Tensor Tensor::logical_xor(const Tensor& o) const { return ember::logical_xor(*this, o); }
Tensor Tensor::bitwise_and(const Tensor& o) const { return ember::bitwise_and(*this, o); }
Tensor Tensor::bitwise_or(const Tensor& o) const { return ember::bitwise_or(*this, o); }
Tensor Tensor::bitwise_xor(const Tensor& o) const { return ember::bitwise_xor(*this, o); }
Tensor Tensor::where(const Tensor& condition, const Tensor& other) const {
  return ember::where(condition, *this, other);
}

// ---- C++ operators -----------------------------------------------------------------------------
Tensor operator-(const Tensor& self) { return neg(self); }
Tensor operator~(const Tensor& self) { return bitwise_not(self); }
Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
Tensor operator-(const Scalar& a, const Tensor& b) { return rsub(b, a); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
Tensor operator/(const Scalar& a, const Tensor& b) { return div(wrapped_scalar(a), b); }
Tensor operator%(const Tensor& a, const Tensor& b) { return remainder(a, b); }
Tensor operator%(const Tensor& a, const Scalar& b) { return remainder(a, b); }
Tensor operator&(const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }
Tensor operator|(const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }
Tensor operator^(const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }
Tensor& operator+=(Tensor& a, const Tensor& b) { return add_(a, b); }
Tensor& operator+=(Tensor& a, const Scalar& b) { return add_(a, b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return sub_(a, b); }
Tensor& operator-=(Tensor& a, const Scalar& b) { return sub_(a, b); }
Tensor& operator*=(Tensor& a, const Tensor& b) { return mul_(a, b); }
Tensor& operator*=(Tensor& a, const Scalar& b) { return mul_(a, b); }
Tensor& operator/=(Tensor& a, const Tensor& b) { return div_(a, b); }
Tensor& operator/=(Tensor& a, const Scalar& b) { return div_(a, b); }

}  // namespace ember
