// isclose, allclose and equal, with PyTorch's rules: isclose needs one dtype, and with
// both tolerances zero it is plain equality; bools are compared as floats otherwise.
#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/statistics.h"
#include "ember/ops/views.h"

namespace ember {

Tensor isclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK(self.dtype() == other.dtype(), scalar_type_name(self.dtype()), " did not match ",
              scalar_type_name(other.dtype()));
  EMBER_CHECK(rtol >= 0, "rtol must be greater than or equal to zero, but got ", rtol);
  EMBER_CHECK(atol >= 0, "atol must be greater than or equal to zero, but got ", atol);
  Tensor close = eq(self, other);
  if (equal_nan && is_floating(self.dtype()))
    close = logical_or(close, logical_and(isnan(self), isnan(other)));
  if (rtol == 0 && atol == 0) return close;
  Tensor a = self.dtype() == DType::Bool ? self.to(default_dtype()) : self;
  Tensor b = other.dtype() == DType::Bool ? other.to(default_dtype()) : other;
  Tensor allowed = abs(b * Scalar(rtol)) + Scalar(atol);
  Tensor actual = abs(a - b);
  return logical_or(close, logical_and(isfinite(actual), le(actual, allowed)));
}

bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  return all(isclose(self, other, rtol, atol, equal_nan)).item<bool>();
}

bool equal(const Tensor& self, const Tensor& other) {
  if (self.sizes() != other.sizes()) return false;
  return all(eq(self, other)).item<bool>();
}

}  // namespace ember
