// The op functions of ops/activation.h: argument checks, then the kernel row
// (lib/dispatch/schema/elementwise.toml) or, for the composites, other ember ops.
#include "ember/ops/activation.h"

#include <cmath>
#include <limits>

#include "core/scalar_range.h"
#include "dispatch/args/elementwise.h"
#include "ember/ops/random.h"
#include "ember/ops/reduce.h"
#include "ops/elementwise_common.h"

namespace ember {

using namespace elementwise_detail;

namespace {

// In place: the result (of self's dtype, these ops keep floating dtypes) is written into self.
Tensor& unary_(OpId op, Tensor& self, SmallVector<Attr, 4> attrs = {}) {
  return elementwise_detail::unary_(op, self, self.dtype(), std::move(attrs));
}

// selu's constants (Klambauer et al.), as torch's.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

SmallVector<Attr, 4> celu_attrs(const Scalar& alpha) {
  double a = alpha.to_double();
  EMBER_CHECK(a != 0, "ZeroDivisionError: alpha cannot be 0 for CELU");
  return EluArgs{.alpha = alpha, .scale = Scalar(1.0), .input_scale = Scalar(1.0 / a)}.attrs();
}

void check_hardtanh_bounds(const Scalar& min_val, const Scalar& max_val) {
  EMBER_CHECK_VALUE(min_val.to_double() <= max_val.to_double(), "min_val cannot be greater than max_val");
}

void check_softshrink_lambd(const Tensor& self, const Scalar& lambd) {
  double l = lambd.to_double();
  EMBER_CHECK(l >= 0, "lambda must be in range [0, ", std::numeric_limits<float>::max(),
              "] for input dtype ", scalar_type_name(self.dtype()), ", but found ", l);
}

void check_rrelu_bounds(const Scalar& lower, const Scalar& upper) {
  EMBER_CHECK(lower.to_double() <= upper.to_double(),
              "Lower bound should be less than or equal to the upper bound");
}

// rrelu's per-element slopes when training: uniform in [lower, upper] where
// self <= 0, 1 elsewhere (so self * noise is the output, and grad * noise its gradient).
Tensor rrelu_noise(const Tensor& self, const Scalar& lower, const Scalar& upper, Generator* generator) {
  Tensor r = empty_like(self.detach());
  uniform_(r, lower.to_double(), upper.to_double(), generator);
  return where(le(self.detach(), Scalar(0)), r, Scalar(1));
}

}  // namespace

// ---- elu family (one kernel) -----------------------------------------------------------------

Tensor elu(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  check_floating("elu", self);
  return unary(opid::elu, self, EluArgs{.alpha = alpha, .scale = scale, .input_scale = input_scale}.attrs());
}
Tensor& elu_(Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  check_floating("elu_", self);
  return unary_(opid::elu, self, EluArgs{.alpha = alpha, .scale = scale, .input_scale = input_scale}.attrs());
}
Tensor selu(const Tensor& self) { return elu(self, kSeluAlpha, kSeluScale, 1.0); }
Tensor& selu_(Tensor& self) { return elu_(self, kSeluAlpha, kSeluScale, 1.0); }
Tensor celu(const Tensor& self, const Scalar& alpha) {
  check_floating("celu", self);
  return unary(opid::elu, self, celu_attrs(alpha));
}
Tensor& celu_(Tensor& self, const Scalar& alpha) {
  check_floating("celu_", self);
  return unary_(opid::elu, self, celu_attrs(alpha));
}

// ---- clamps ------------------------------------------------------------------------------------

Tensor hardtanh(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  check_not_bool("hardtanh", self);
  check_hardtanh_bounds(min_val, max_val);
  return unary(opid::hardtanh, self, HardtanhArgs{.min_val = min_val, .max_val = max_val}.attrs());
}
Tensor& hardtanh_(Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  check_not_bool("hardtanh_", self);
  check_hardtanh_bounds(min_val, max_val);
  return unary_(opid::hardtanh, self, HardtanhArgs{.min_val = min_val, .max_val = max_val}.attrs());
}
Tensor relu6(const Tensor& self) { return hardtanh(self, 0, 6); }
Tensor& relu6_(Tensor& self) { return hardtanh_(self, 0, 6); }

Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  check_not_bool("threshold", self);
  check_scalar_fits("threshold", threshold, self.dtype());
  check_scalar_fits("threshold", value, self.dtype());
  return unary(opid::threshold, self, ThresholdArgs{.threshold = threshold, .value = value}.attrs());
}
Tensor& threshold_(Tensor& self, const Scalar& threshold, const Scalar& value) {
  check_not_bool("threshold_", self);
  check_scalar_fits("threshold_", threshold, self.dtype());
  check_scalar_fits("threshold_", value, self.dtype());
  return unary_(opid::threshold, self, ThresholdArgs{.threshold = threshold, .value = value}.attrs());
}

// ---- smooth and hard gates -----------------------------------------------------------------



Tensor softshrink(const Tensor& self, const Scalar& lambd) {
  check_floating("softshrink", self);
  check_softshrink_lambd(self, lambd);
  return unary(opid::softshrink, self, SoftshrinkArgs{.lambd = lambd}.attrs());
}
Tensor hardshrink(const Tensor& self, const Scalar& lambd) {
  check_floating("hardshrink", self);
  return unary(opid::hardshrink, self, HardshrinkArgs{.lambd = lambd}.attrs());
}

// ---- composites -----------------------------------------------------------------------------

Tensor softsign(const Tensor& self) {
  check_defined("softsign", self);
  return div(self, add(abs(self), Scalar(1)));
}

Tensor tanhshrink(const Tensor& self) {
  check_defined("tanhshrink", self);
  return sub(self, tanh(self));
}

Tensor glu(const Tensor& self, int64_t dim) {
  check_defined("glu", self);
  EMBER_CHECK(self.dim() > 0, "glu does not support scalars because halving size must be even");
  int64_t d = wrap_dim(dim, self.dim(), "glu");
  int64_t n = self.size(d);
  EMBER_CHECK(n % 2 == 0, "Halving dimension must be even, but dimension ", d, " is size ", n);
  if (!self.is_floating_point()) not_implemented("glu", self.dtype());
  return mul(narrow(self, d, 0, n / 2), sigmoid(narrow(self, d, n / 2, n / 2)));
}

Tensor prelu(const Tensor& self, const Tensor& weight) {
  check_defined("prelu", self);
  check_defined("prelu", weight);
  EMBER_CHECK(self.dtype() == weight.dtype(), "prelu: Type promoting not supported. Got ",
              scalar_type_name(self.dtype()), " and ", scalar_type_name(weight.dtype()));
  if (!self.is_floating_point()) not_implemented("prelu", self.dtype());
  EMBER_CHECK(weight.dim() <= 1, "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = ",
              weight.dim());
  int64_t channels = self.dim() >= 2 ? self.size(1) : 1;
  int64_t params = weight.numel();
  EMBER_CHECK(params == 1 || params == channels,
              "Mismatch of parameter numbers and input channel size. Found parameter numbers = ", params,
              " and channel size = ", channels, ".");
  // One slope, or one per channel: weight as [1, C, 1, ...] against self's [N, C, ...].
  IntList shape;
  if (params != 1) {
    shape.assign(static_cast<size_t>(self.dim()), 1);
    shape[1] = params;
  }
  Tensor w = weight.reshape(shape);
  return where(gt(self, Scalar(0)), self, mul(w, self));
}

Tensor rrelu(const Tensor& self, const Scalar& lower, const Scalar& upper, bool training, Generator* generator) {
  check_floating("rrelu", self);
  check_rrelu_bounds(lower, upper);
  if (!training) return leaky_relu(self, Scalar((lower.to_double() + upper.to_double()) / 2));
  return mul(self, rrelu_noise(self, lower, upper, generator));
}
Tensor& rrelu_(Tensor& self, const Scalar& lower, const Scalar& upper, bool training, Generator* generator) {
  check_floating("rrelu_", self);
  check_rrelu_bounds(lower, upper);
  if (!training) return leaky_relu_(self, Scalar((lower.to_double() + upper.to_double()) / 2));
  return mul_(self, rrelu_noise(self, lower, upper, generator));
}

Tensor softmin(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  check_defined("softmin", self);
  return softmax(neg(self), dim, dtype);
}

// ---- backward ops ---------------------------------------------------------------------------

Tensor elu_backward(const Tensor& grad_output, const Tensor& self, const Scalar& alpha, const Scalar& scale,
                    const Scalar& input_scale) {
  return float_unary_backward(
      opid::elu_backward, grad_output, self,
      EluBackwardArgs{.alpha = alpha, .scale = scale, .input_scale = input_scale}.attrs());
}
Tensor gelu_backward(const Tensor& grad_output, const Tensor& self, const std::string& approximate) {
  EMBER_CHECK_VALUE(approximate == "none" || approximate == "tanh",
                    "gelu_backward: approximate argument must be either none or tanh, got '", approximate, "'");
  return float_unary_backward(opid::gelu_backward, grad_output, self,
                              GeluBackwardArgs{.approximate = approximate}.attrs());
}
Tensor hardtanh_backward(const Tensor& grad_output, const Tensor& self, const Scalar& min_val,
                         const Scalar& max_val) {
  return float_unary_backward(opid::hardtanh_backward, grad_output, self,
                              HardtanhBackwardArgs{.min_val = min_val, .max_val = max_val}.attrs());
}
Tensor hardshrink_backward(const Tensor& grad_output, const Tensor& self, const Scalar& lambd) {
  return float_unary_backward(opid::hardshrink_backward, grad_output, self,
                              HardshrinkBackwardArgs{.lambd = lambd}.attrs());
}

}  // namespace ember
