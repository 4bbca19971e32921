// Op functions of the elementwise special functions (ember/ops/elementwise_special.h):
// argument checks as PyTorch makes them, then one dispatched row each
// (lib/dispatch/schema/elementwise.toml); the composites (aliases, deg2rad, logit,
// float_power, ldexp, addcmul, addcdiv, ...) are written from other ops.
#include "ember/ops/elementwise_special.h"

#include <cmath>

#include "ops/elementwise_common.h"
#include "dispatch/args/elementwise.h"
#include "dispatch/op_ids/core.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember {

using namespace elementwise_detail;

namespace {

DType checked_result_type(const char* op, const Tensor& a, const Tensor& b) {
  check_defined(op, a);
  check_defined(op, b);
  return result_type(a, b);
}

// Float-only binary ops (hypot, logaddexp, nextafter): integer results are refused.
DType float_only(const char* op, const Tensor& a, const Tensor& b) {
  DType dt = checked_result_type(op, a, b);
  if (!is_floating(dt)) not_implemented(op, dt);
  return dt;
}

// gcd, lcm: integer dtypes only (not bool).
DType integer_only(const char* op, const Tensor& a, const Tensor& b) {
  DType dt = checked_result_type(op, a, b);
  if (is_floating(dt) || dt == kBool) not_implemented(op, dt);
  return dt;
}

// Writes a composite's result into self, as an in-place op: the result dtype must
// cast to self's and the shapes agree.
Tensor& assign_result(const char* op, Tensor& self, const Tensor& result) {
  check_inplace(op, self, result.dtype(), result.sizes());
  return self.copy_(result);
}

}  // namespace

// ---- unary with a kernel (acos ... i0 are structured: their rows generate them) ---------------

Tensor special_i1(const Tensor& self) { return unary(opid::special_i1, self); }

static void check_polygamma(int64_t n) {
  EMBER_CHECK(n >= 0, "polygamma(n, x) does not support negative n.");
}
Tensor polygamma(int64_t n, const Tensor& self) {
  check_polygamma(n);
  return unary(opid::polygamma, self, PolygammaArgs{.n = n}.attrs());
}
Tensor& polygamma_(Tensor& self, int64_t n) {
  check_polygamma(n);
  check_defined("polygamma_", self);
  return unary_(opid::polygamma, self, float_dtype(self.dtype()), PolygammaArgs{.n = n}.attrs());
}

Tensor frac(const Tensor& self) {
  check_floating("frac", self);
  return unary(opid::frac, self);
}
Tensor& frac_(Tensor& self) {
  check_floating("frac_", self);
  return unary_(opid::frac, self, self.dtype());
}

// signbit is structured (generated from its row).

// ---- unary composites ------------------------------------------------------------------------

#define EMBER_ALIAS(alias, name)                                    \
  Tensor alias(const Tensor& self) { return name(self); }           \
  Tensor& alias##_(Tensor& self) { return name##_(self); }
EMBER_ALIAS(sgn, sign)  // no complex dtypes: sgn is sign
#undef EMBER_ALIAS

// As PyTorch: self * (pi / 180); integer inputs give the default float dtype.
static Tensor scaled_angle(const Tensor& self, double factor) {
  check_defined("deg2rad", self);
  Tensor x = self.is_floating_point() ? self : self.to(float_dtype(self.dtype()));
  return mul(x, factor);
}
Tensor deg2rad(const Tensor& self) { return scaled_angle(self, M_PI / 180.0); }
Tensor rad2deg(const Tensor& self) { return scaled_angle(self, 180.0 / M_PI); }
Tensor& deg2rad_(Tensor& self) {
  check_defined("deg2rad_", self);
  if (!self.is_floating_point()) return assign_result("deg2rad_", self, deg2rad(self));
  return mul_(self, M_PI / 180.0);
}
Tensor& rad2deg_(Tensor& self) {
  check_defined("rad2deg_", self);
  if (!self.is_floating_point()) return assign_result("rad2deg_", self, rad2deg(self));
  return mul_(self, 180.0 / M_PI);
}

Tensor positive(const Tensor& self) {
  check_defined("positive", self);
  EMBER_CHECK_AS(NotImplementedError, self.dtype() != kBool,
                 "The `+` operator, on a bool tensor is not supported.");
  return self;
}

Tensor isposinf(const Tensor& self) { return logical_and(isinf(self), logical_not(signbit(self))); }
Tensor isneginf(const Tensor& self) { return logical_and(isinf(self), signbit(self)); }
Tensor isreal(const Tensor& self) {
  check_defined("isreal", self);
  return ones_like(self, TensorOptions(kBool).device(self.device()));
}

// log(x / (1 - x)) of x clamped to [eps, 1 - eps] (PyTorch's formula), so the
// gradient is 0 outside that interval. float16 and bfloat16 compute in float32 and
// round once, as PyTorch's kernel does.
Tensor logit(const Tensor& self, std::optional<double> eps) {
  check_defined("logit", self);
  DType out = float_dtype(self.dtype());
  bool reduced = out == kFloat16 || out == kBFloat16;
  Tensor x = self.dtype() == out && !reduced ? self : self.to(reduced ? kFloat32 : out);
  if (eps) {
    // The bounds in the result dtype, as PyTorch: lo = eps, hi = 1 - lo, each rounded.
    auto rounded = [out](double v) { return full({}, Scalar(v), TensorOptions(out)).item().to_double(); };
    double lo = rounded(*eps);
    x = clamp(x, Scalar(lo), Scalar(rounded(1.0 - lo)));
  }
  Tensor r = log(div(x, rsub(x, Scalar(1))));
  return reduced ? r.to(out) : r;
}
Tensor& logit_(Tensor& self, std::optional<double> eps) {
  return assign_result("logit_", self, logit(self, eps));
}

// ---- binary with a kernel ---------------------------------------------------------------------

Tensor hypot(const Tensor& self, const Tensor& other) {
  float_only("hypot", self, other);
  return binary(opid::hypot, self, other);
}
Tensor& hypot_(Tensor& self, const Tensor& other) {
  return binary_("hypot_", opid::hypot, self, other, float_only("hypot_", self, other));
}
Tensor logaddexp(const Tensor& self, const Tensor& other) {
  float_only("logaddexp", self, other);
  return binary(opid::logaddexp, self, other);
}
Tensor logaddexp2(const Tensor& self, const Tensor& other) {
  float_only("logaddexp2", self, other);
  return binary(opid::logaddexp2, self, other);
}
Tensor nextafter(const Tensor& self, const Tensor& other) {
  float_only("nextafter", self, other);
  return binary(opid::nextafter, self, other);
}
Tensor& nextafter_(Tensor& self, const Tensor& other) {
  return binary_("nextafter_", opid::nextafter, self, other, float_only("nextafter_", self, other));
}

Tensor copysign(const Tensor& self, const Tensor& other) {
  checked_result_type("copysign", self, other);
  return binary(opid::copysign, self, other);
}
Tensor copysign(const Tensor& self, const Scalar& other) { return copysign(self, wrapped_scalar(other)); }
Tensor& copysign_(Tensor& self, const Tensor& other) {
  DType dt = float_dtype(checked_result_type("copysign_", self, other));
  return binary_("copysign_", opid::copysign, self, other, dt);
}
Tensor& copysign_(Tensor& self, const Scalar& other) { return copysign_(self, wrapped_scalar(other)); }

Tensor xlogy(const Tensor& self, const Tensor& other) {
  checked_result_type("xlogy", self, other);
  return binary(opid::xlogy, self, other);
}
Tensor xlogy(const Tensor& self, const Scalar& other) { return xlogy(self, wrapped_scalar(other)); }
Tensor xlogy(const Scalar& self, const Tensor& other) { return xlogy(wrapped_scalar(self), other); }
Tensor& xlogy_(Tensor& self, const Tensor& other) {
  DType dt = float_dtype(checked_result_type("xlogy_", self, other));
  return binary_("xlogy_", opid::xlogy, self, other, dt);
}
Tensor& xlogy_(Tensor& self, const Scalar& other) { return xlogy_(self, wrapped_scalar(other)); }

Tensor fmax(const Tensor& self, const Tensor& other) {
  checked_result_type("fmax", self, other);
  return binary(opid::fmax, self, other);
}
Tensor fmin(const Tensor& self, const Tensor& other) {
  checked_result_type("fmin", self, other);
  return binary(opid::fmin, self, other);
}

static DType heaviside_result(const char* op, const Tensor& self, const Tensor& values) {
  check_defined(op, self);
  check_defined(op, values);
  EMBER_CHECK(self.dtype() == values.dtype(),
              "heaviside is not yet implemented for tensors with different dtypes.");
  return self.dtype();
}
Tensor heaviside(const Tensor& self, const Tensor& values) {
  heaviside_result("heaviside", self, values);
  return binary(opid::heaviside, self, values);
}
Tensor& heaviside_(Tensor& self, const Tensor& values) {
  return binary_("heaviside_", opid::heaviside, self, values, heaviside_result("heaviside_", self, values));
}

Tensor gcd(const Tensor& self, const Tensor& other) {
  integer_only("gcd", self, other);
  return binary(opid::gcd, self, other);
}
Tensor& gcd_(Tensor& self, const Tensor& other) {
  return binary_("gcd_", opid::gcd, self, other, integer_only("gcd_", self, other));
}
Tensor lcm(const Tensor& self, const Tensor& other) {
  integer_only("lcm", self, other);
  return binary(opid::lcm, self, other);
}
Tensor& lcm_(Tensor& self, const Tensor& other) {
  return binary_("lcm_", opid::lcm, self, other, integer_only("lcm_", self, other));
}

// ---- binary composites ---------------------------------------------------------------------

// pow in float64, as PyTorch (a float64 result whatever the inputs).
Tensor float_power(const Tensor& self, const Tensor& exponent) {
  checked_result_type("float_power", self, exponent);
  return pow(self.to(kFloat64), exponent.to(kFloat64));
}
Tensor float_power(const Tensor& self, const Scalar& exponent) {
  check_defined("float_power", self);
  return pow(self.to(kFloat64), Scalar(exponent.to_double()));
}
Tensor float_power(const Scalar& self, const Tensor& exponent) {
  check_defined("float_power", exponent);
  return pow(Scalar(self.to_double()), exponent.to(kFloat64));
}
static void check_float_power_(const Tensor& self) {
  check_defined("float_power_", self);
  EMBER_CHECK(self.dtype() == kFloat64, "the base given to float_power_ has dtype ",
              scalar_type_name(self.dtype()), " but the operation's result requires dtype Double");
}
Tensor& float_power_(Tensor& self, const Tensor& exponent) {
  check_float_power_(self);
  check_defined("float_power_", exponent);
  return pow_(self, exponent.to(kFloat64));
}
Tensor& float_power_(Tensor& self, const Scalar& exponent) {
  check_float_power_(self);
  return pow_(self, Scalar(exponent.to_double()));
}

// self * 2 ** other in float_dtype(result_type(self, other)), as PyTorch's dtypes.
Tensor ldexp(const Tensor& self, const Tensor& other) {
  DType dt = float_dtype(checked_result_type("ldexp", self, other));
  return mul(self.to(dt), pow(Scalar(2.0), other.to(dt)));
}
Tensor& ldexp_(Tensor& self, const Tensor& other) {
  DType dt = float_dtype(checked_result_type("ldexp_", self, other));
  return mul_(self, pow(Scalar(2.0), other.to(dt)));
}

// ---- addcmul, addcdiv ------------------------------------------------------------------------

static void check_addc(const char* op, const Tensor& self, const Tensor& t1, const Tensor& t2) {
  check_defined(op, self);
  check_defined(op, t1);
  check_defined(op, t2);
}
static void check_addcdiv(const char* op, const Tensor& self, const Tensor& t1, const Tensor& t2) {
  check_addc(op, self, t1, t2);
  EMBER_CHECK(is_floating(t1.dtype()) || is_floating(t2.dtype()),
              "Integer division with addcdiv is no longer supported, and in a future release "
              "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
              "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to("
              "input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float "
              "inputs. The future addcdiv behavior is just the latter implementation: (input + value "
              "* tensor1 / tensor2), for all dtypes.");
}
Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  check_addc("addcmul", self, tensor1, tensor2);
  return add(self, mul(tensor1, tensor2), value);
}
Tensor& addcmul_(Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  check_addc("addcmul_", self, tensor1, tensor2);
  return add_(self, mul(tensor1, tensor2), value);
}
Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  check_addcdiv("addcdiv", self, tensor1, tensor2);
  return add(self, div(tensor1, tensor2), value);
}
Tensor& addcdiv_(Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  check_addcdiv("addcdiv_", self, tensor1, tensor2);
  return add_(self, div(tensor1, tensor2), value);
}

}  // namespace ember
