// Op functions of torch.special's two-tensor functions (ember/ops/special_functions.h):
// PyTorch's argument checks, then one dispatched row each
// (lib/dispatch/schema/elementwise.toml; kernels cpu/special_binary.cpp and
// cuda/elementwise/special_binary.cu), and mvlgamma, a composite of lgamma.
#include "ember/ops/special_functions.h"

#include <cmath>

#include "ember/generated/ops.h"
#include "ember/ops/reduce.h"
#include "ops/elementwise_common.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember {

using namespace elementwise_detail;

namespace {

// igamma and igammac have float kernels only: an integer or bool result type is
// refused as PyTorch refuses it (NotImplementedError naming the dtype).
DType float_result(const char* op, const Tensor& a, const Tensor& b) {
  check_defined(op, a);
  check_defined(op, b);
  DType dt = result_type(a, b);
  if (!is_floating(dt)) not_implemented(op, dt);
  return dt;
}

}  // namespace

Tensor igamma(const Tensor& self, const Tensor& other) {
  float_result("igamma", self, other);
  return binary(opid::igamma, self, other);
}
Tensor& igamma_(Tensor& self, const Tensor& other) {
  return binary_("igamma_", opid::igamma, self, other, float_result("igamma_", self, other));
}
Tensor igammac(const Tensor& self, const Tensor& other) {
  float_result("igammac", self, other);
  return binary(opid::igammac, self, other);
}
Tensor& igammac_(Tensor& self, const Tensor& other) {
  return binary_("igammac_", opid::igammac, self, other, float_result("igammac_", self, other));
}

// Integer and bool operands compute in the default float dtype (the kernels' float_dtype).
#define EMBER_SPECIAL_BINARY(name, a, b) \
  Tensor name(const Tensor& a, const Tensor& b) { return binary(opid::name, a, b); }
EMBER_SPECIAL_BINARY(special_zeta, self, other)
EMBER_SPECIAL_BINARY(special_xlog1py, self, other)
EMBER_SPECIAL_BINARY(special_chebyshev_polynomial_t, x, n)
EMBER_SPECIAL_BINARY(special_chebyshev_polynomial_u, x, n)
EMBER_SPECIAL_BINARY(special_chebyshev_polynomial_v, x, n)
EMBER_SPECIAL_BINARY(special_chebyshev_polynomial_w, x, n)
EMBER_SPECIAL_BINARY(special_shifted_chebyshev_polynomial_t, x, n)
EMBER_SPECIAL_BINARY(special_shifted_chebyshev_polynomial_u, x, n)
EMBER_SPECIAL_BINARY(special_shifted_chebyshev_polynomial_v, x, n)
EMBER_SPECIAL_BINARY(special_shifted_chebyshev_polynomial_w, x, n)
EMBER_SPECIAL_BINARY(special_hermite_polynomial_h, x, n)
EMBER_SPECIAL_BINARY(special_hermite_polynomial_he, x, n)
EMBER_SPECIAL_BINARY(special_laguerre_polynomial_l, x, n)
EMBER_SPECIAL_BINARY(special_legendre_polynomial_p, x, n)
#undef EMBER_SPECIAL_BINARY

// ---- mvlgamma -----------------------------------------------------------------------------

static void check_mvlgamma(const Tensor& self, int64_t p) {
  check_defined("mvlgamma", self);
  EMBER_CHECK(self.dtype() != kBool, "The input tensor may not be a boolean tensor.");
  EMBER_CHECK(p >= 1, "p has to be greater than or equal to 1");
}

// As PyTorch: lgamma(self[..., None] + [-(p-1)/2, ..., -1/2, 0]) summed over the new last
// dim, plus p(p-1)/4 log(pi); integer inputs compute in the default float dtype.
Tensor mvlgamma(const Tensor& self, int64_t p) {
  check_mvlgamma(self, p);
  DType dt = float_dtype(self.dtype());
  Tensor offsets = arange(Scalar(-0.5 * static_cast<double>(p) + 0.5), Scalar(0.5), Scalar(0.5),
                          TensorOptions(dt).device(self.device()));
  Tensor args = add(offsets, self.unsqueeze(-1));
  double constant = static_cast<double>(p) * static_cast<double>(p - 1) * std::log(M_PI) * 0.25;
  return add(sum(lgamma(args), IntList{-1}), Scalar(constant));
}
Tensor& mvlgamma_(Tensor& self, int64_t p) {
  check_mvlgamma(self, p);
  Tensor result = mvlgamma(self, p);
  check_inplace("mvlgamma", self, result.dtype(), result.sizes());
  return self.copy_(result);
}

}  // namespace ember
