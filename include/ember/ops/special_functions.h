// torch.special's functions of two tensors that have hand-written kernels
// (lib/ops/special_functions.cpp; rows in lib/dispatch/schema/elementwise.toml), and the
// multivariate log-gamma written from other ops. The one-argument ones (Bessel,
// erfcx, ndtri, ...) are structured: their declarations are generated
// (ember/generated/elementwise_ops.h).
#pragma once
#include "ember/tensor.h"

namespace ember {

// Regularized incomplete gamma functions P(self, other) and Q(self, other) = 1 - P
// (torch.igamma / igammac, torch.special.gammainc / gammaincc): floating dtypes only.
Tensor igamma(const Tensor& self, const Tensor& other);
Tensor& igamma_(Tensor& self, const Tensor& other);
Tensor igammac(const Tensor& self, const Tensor& other);
Tensor& igammac_(Tensor& self, const Tensor& other);

// Hurwitz zeta(self, other) and self * log1p(other): integer results in the default float dtype.
Tensor special_zeta(const Tensor& self, const Tensor& other);
Tensor special_xlog1py(const Tensor& self, const Tensor& other);

// The orthogonal polynomials p_n(x), n truncated toward zero (0 for n < 0).
Tensor special_chebyshev_polynomial_t(const Tensor& x, const Tensor& n);
Tensor special_chebyshev_polynomial_u(const Tensor& x, const Tensor& n);
Tensor special_chebyshev_polynomial_v(const Tensor& x, const Tensor& n);
Tensor special_chebyshev_polynomial_w(const Tensor& x, const Tensor& n);
Tensor special_shifted_chebyshev_polynomial_t(const Tensor& x, const Tensor& n);
Tensor special_shifted_chebyshev_polynomial_u(const Tensor& x, const Tensor& n);
Tensor special_shifted_chebyshev_polynomial_v(const Tensor& x, const Tensor& n);
Tensor special_shifted_chebyshev_polynomial_w(const Tensor& x, const Tensor& n);
Tensor special_hermite_polynomial_h(const Tensor& x, const Tensor& n);
Tensor special_hermite_polynomial_he(const Tensor& x, const Tensor& n);
Tensor special_laguerre_polynomial_l(const Tensor& x, const Tensor& n);
Tensor special_legendre_polynomial_p(const Tensor& x, const Tensor& n);

// The multivariate log-gamma of dimension p >= 1 (torch.mvlgamma,
// torch.special.multigammaln): sum_{i<p} lgamma(self - i/2) + p(p-1)/4 log(pi).
Tensor mvlgamma(const Tensor& self, int64_t p);
Tensor& mvlgamma_(Tensor& self, int64_t p);

}  // namespace ember
