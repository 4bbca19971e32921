// Binary arithmetic op functions (add ... atan2), lerp and where: argument
// checks as PyTorch makes them, then one dispatched row each.
#include "ops/elementwise_common.h"
#include "dispatch/args/elementwise.h"
#include "dispatch/op_ids/elementwise.h"
#include "ember/ops/reduce.h"

namespace ember {

using namespace elementwise_detail;

namespace {

void check_alpha(const char* op, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  if (!alpha.is_float() && !alpha.is_bool()) return;
  DType dt = result_type(a, b);
  if (alpha.is_float())
    EMBER_CHECK(is_floating(dt), op, ": for integral input tensors, argument alpha must not be a "
                "floating point number.");
  else
    EMBER_CHECK(dt == kBool, op, ": Boolean alpha only supported for Boolean results.");
}

void check_sub(const char* op, const Tensor& a, const Tensor& b) {
  check_defined(op, a);
  check_defined(op, b);
  bool ab = a.dtype() == kBool, bb = b.dtype() == kBool;
  EMBER_CHECK_AS(NotImplementedError, !(ab && bb), op, ": subtraction, the `-` operator, with two "
                 "bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.");
  EMBER_CHECK_AS(NotImplementedError, !(ab || bb), op, ": subtraction, the `-` operator, with a bool "
                 "tensor is not supported. If you are trying to invert a mask, use the `~` or "
                 "`logical_not()` operator instead.");
}

// An op without a bool kernel: the promoted dtype must not be bool.
DType no_bool_result(const char* op, const Tensor& a, const Tensor& b) {
  check_defined(op, a);
  check_defined(op, b);
  DType dt = result_type(a, b);
  if (dt == kBool) not_implemented(op, kBool);
  return dt;
}

}  // namespace

// ---- add, sub, mul ------------------------------------------------------------------------

Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_alpha("add", self, other, alpha);
  return binary(opid::add, self, other, AddArgs{.alpha = alpha}.attrs());
}
Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return add(self, wrapped_scalar(other), alpha);
}
Tensor& add_(Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_alpha("add_", self, other, alpha);
  return binary_("add_", opid::add, self, other, result_type(self, other), AddArgs{.alpha = alpha}.attrs());
}
Tensor& add_(Tensor& self, const Scalar& other, const Scalar& alpha) {
  return add_(self, wrapped_scalar(other), alpha);
}

Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_sub("sub", self, other);
  check_alpha("sub", self, other, alpha);
  return binary(opid::sub, self, other, SubArgs{.alpha = alpha}.attrs());
}
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return sub(self, wrapped_scalar(other), alpha);
}
Tensor& sub_(Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_sub("sub_", self, other);
  check_alpha("sub_", self, other, alpha);
  return binary_("sub_", opid::sub, self, other, result_type(self, other), SubArgs{.alpha = alpha}.attrs());
}
Tensor& sub_(Tensor& self, const Scalar& other, const Scalar& alpha) {
  return sub_(self, wrapped_scalar(other), alpha);
}
Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return sub(other, self, alpha);
}
Tensor rsub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return sub(wrapped_scalar(other), self, alpha);
}

Tensor mul(const Tensor& self, const Tensor& other) { return binary(opid::mul, self, other); }
Tensor mul(const Tensor& self, const Scalar& other) { return mul(self, wrapped_scalar(other)); }
Tensor& mul_(Tensor& self, const Tensor& other) {
  return binary_("mul_", opid::mul, self, other, result_type(self, other));
}
Tensor& mul_(Tensor& self, const Scalar& other) { return mul_(self, wrapped_scalar(other)); }

// ---- division ------------------------------------------------------------------------------

namespace {

// The result dtype of div with the given rounding mode, after checking the mode.
DType div_result(const char* op, const Tensor& a, const Tensor& b,
                 const std::optional<std::string>& mode) {
  check_defined(op, a);
  check_defined(op, b);
  if (!mode) return float_dtype(result_type(a, b));
  EMBER_CHECK(*mode == "trunc" || *mode == "floor", op, ": expected rounding_mode to be one of "
              "None, 'trunc', or 'floor' but found '", *mode, "'");
  return no_bool_result(op, a, b);
}

// An in-place integer division by zero raises before the kernel runs: the kernel finds
// it only as it writes, which would leave self half-divided.
void check_no_zero_divisor(const char* op, DType result, const Tensor& divisor) {
  if (is_floating(result) || result == kBool) return;
  EMBER_CHECK(!any(eq(divisor, 0)).item<bool>(), "ZeroDivisionError: ", op,
              ": integer division by zero");
}

}  // namespace

Tensor div(const Tensor& self, const Tensor& other, const std::optional<std::string>& rounding_mode) {
  div_result("div", self, other, rounding_mode);
  return binary(opid::div, self, other, DivArgs{.rounding_mode = rounding_mode}.attrs());
}
Tensor div(const Tensor& self, const Scalar& other, const std::optional<std::string>& rounding_mode) {
  return div(self, wrapped_scalar(other), rounding_mode);
}
Tensor& div_(Tensor& self, const Tensor& other, const std::optional<std::string>& rounding_mode) {
  DType dt = div_result("div_", self, other, rounding_mode);
  check_no_zero_divisor("div_", dt, other);
  return binary_("div_", opid::div, self, other, dt, DivArgs{.rounding_mode = rounding_mode}.attrs());
}
Tensor& div_(Tensor& self, const Scalar& other, const std::optional<std::string>& rounding_mode) {
  return div_(self, wrapped_scalar(other), rounding_mode);
}
Tensor floor_divide(const Tensor& self, const Tensor& other) { return div(self, other, "floor"); }
Tensor true_divide(const Tensor& self, const Tensor& other) { return div(self, other); }

Tensor remainder(const Tensor& self, const Tensor& other) {
  no_bool_result("remainder", self, other);
  return binary(opid::remainder, self, other);
}
Tensor remainder(const Tensor& self, const Scalar& other) { return remainder(self, wrapped_scalar(other)); }
Tensor& remainder_(Tensor& self, const Tensor& other) {
  DType dt = no_bool_result("remainder_", self, other);
  check_no_zero_divisor("remainder_", dt, other);
  return binary_("remainder_", opid::remainder, self, other, dt);
}
Tensor& remainder_(Tensor& self, const Scalar& other) { return remainder_(self, wrapped_scalar(other)); }

Tensor fmod(const Tensor& self, const Tensor& other) {
  no_bool_result("fmod", self, other);
  return binary(opid::fmod, self, other);
}
Tensor fmod(const Tensor& self, const Scalar& other) { return fmod(self, wrapped_scalar(other)); }
Tensor& fmod_(Tensor& self, const Tensor& other) {
  DType dt = no_bool_result("fmod_", self, other);
  check_no_zero_divisor("fmod_", dt, other);
  return binary_("fmod_", opid::fmod, self, other, dt);
}
Tensor& fmod_(Tensor& self, const Scalar& other) { return fmod_(self, wrapped_scalar(other)); }

// ---- pow -------------------------------------------------------------------------------------

namespace {
DType pow_result(const char* op, const Tensor& base, const Tensor& exponent) {
  check_defined(op, base);
  check_defined(op, exponent);
  DType dt = result_type(base, exponent);
  // bool ** True / False is defined (a copy / ones, as PyTorch's Scalar overload); other bool powers are not.
  if (dt == kBool && !exponent.impl()->is_wrapped_number) not_implemented(op, kBool);
  // As PyTorch: an integer tensor to a negative integer number is an error (a
  // negative integer *tensor* exponent is not; it truncates to 0, 1 or -1).
  if (exponent.impl()->is_wrapped_number && !is_floating(exponent.dtype()) &&
      !is_floating(base.dtype()))
    EMBER_CHECK(exponent.item().to_int() >= 0, op,
                ": Integers to negative integer powers are not allowed.");
  return dt;
}
}  // namespace

Tensor pow(const Tensor& self, const Tensor& exponent) {
  pow_result("pow", self, exponent);
  return binary(opid::pow, self, exponent);
}
Tensor pow(const Tensor& self, const Scalar& exponent) { return pow(self, wrapped_scalar(exponent)); }
Tensor pow(const Scalar& self, const Tensor& exponent) { return pow(wrapped_scalar(self), exponent); }
Tensor& pow_(Tensor& self, const Tensor& exponent) {
  return binary_("pow_", opid::pow, self, exponent, pow_result("pow_", self, exponent));
}
Tensor& pow_(Tensor& self, const Scalar& exponent) { return pow_(self, wrapped_scalar(exponent)); }

// ---- maximum, minimum, atan2 ----------------------------------------------------------------

Tensor maximum(const Tensor& self, const Tensor& other) { return binary(opid::maximum, self, other); }
Tensor minimum(const Tensor& self, const Tensor& other) { return binary(opid::minimum, self, other); }
Tensor& maximum_(Tensor& self, const Tensor& other) {
  return binary_("maximum_", opid::maximum, self, other, result_type(self, other));
}
Tensor& minimum_(Tensor& self, const Tensor& other) {
  return binary_("minimum_", opid::minimum, self, other, result_type(self, other));
}
Tensor atan2(const Tensor& self, const Tensor& other) { return binary(opid::atan2, self, other); }
Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, const Scalar& threshold) {
  check_defined("threshold_backward", grad_output);
  check_defined("threshold_backward", self);
  EMBER_CHECK_TYPE(grad_output.dtype() == self.dtype() && is_floating(self.dtype()),
                   "threshold_backward: grad_output and self must have the same floating dtype, got ",
                   dtype_name(grad_output.dtype()), " and ", dtype_name(self.dtype()));
  return binary(opid::threshold_backward, grad_output, self,
                ThresholdBackwardArgs{.threshold = threshold}.attrs());
}
Tensor& atan2_(Tensor& self, const Tensor& other) {
  return binary_("atan2_", opid::atan2, self, other, float_dtype(result_type(self, other)));
}

// ---- lerp --------------------------------------------------------------------------------------

namespace {
void check_lerp(const char* op, const Tensor& self, const Tensor& end, const Tensor& weight) {
  check_defined(op, self);
  check_defined(op, end);
  check_defined(op, weight);
  if (!self.is_floating_point()) not_implemented(op, self.dtype());
  EMBER_CHECK(end.dtype() == self.dtype(), op, ": expected dtype ", dtype_name(self.dtype()),
              " for `end` but got dtype ", dtype_name(end.dtype()));
  // A 0-dim weight counts as a number (any float dtype); a weight with dims must match.
  EMBER_CHECK(weight.dim() == 0 || weight.dtype() == self.dtype(), op, ": expected dtype ",
              dtype_name(self.dtype()), " for `weight` but got dtype ", dtype_name(weight.dtype()));
}
}  // namespace

Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {
  check_lerp("lerp", self, end, weight);
  OpCall call(opid::lerp, {self, end, weight});
  return run(call);
}
Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight) {
  return lerp(self, end, wrapped_scalar(weight));
}
Tensor& lerp_(Tensor& self, const Tensor& end, const Tensor& weight) {
  check_lerp("lerp_", self, end, weight);
  DimVector shape = broadcast_shapes(inplace_shape(self, end, "lerp_"), weight.sizes(), "lerp_");
  OpCall call(opid::lerp, {self, end, weight});
  return run_inplace(call, self, self.dtype(), shape);
}
Tensor& lerp_(Tensor& self, const Tensor& end, const Scalar& weight) {
  return lerp_(self, end, wrapped_scalar(weight));
}

// ---- where -------------------------------------------------------------------------------------

Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  check_defined("where", condition);
  check_defined("where", self);
  check_defined("where", other);
  EMBER_CHECK(condition.dtype() == kBool, "where: expected condition to be a boolean tensor, but "
              "got a tensor with dtype ", scalar_type_name(condition.dtype()));
  OpCall call(opid::where, {condition, self, other});
  return run(call);
}
Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other) {
  return where(condition, wrapped_scalar(self), other);
}
Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other) {
  return where(condition, self, wrapped_scalar(other));
}
Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other) {
  return where(condition, wrapped_scalar(self), wrapped_scalar(other));
}

}  // namespace ember
