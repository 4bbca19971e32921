// CUDA kernels of torch.special's binary functions: igamma, igammac, zeta, xlog1py and
// the orthogonal polynomials (the CPU's: cpu/special_binary.cpp; formulas:
// kernels/special_binary_fn.h, shared by both). The function is a launch argument
// (the same for every thread, so no divergence): one kernel per dtype for the family.
#include "kernels/special_binary_fn.h"
#include "cuda/elementwise/helpers.cuh"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cuda {
namespace {

struct SpecialBinary {
  SpecialBinaryFn fn;
  template <typename T> __device__ T operator()(T x, T y) const { return special_binary_value(fn, x, y); }
};

// Computed in result_type(self, other), integer results in the default float dtype.
template <SpecialBinaryFn kFn>
void special_binary_kernel(OpCall& c) { float_binary(c, SpecialBinary{kFn}); }

using F = SpecialBinaryFn;
EMBER_REGISTER_KERNEL(igamma, CUDA, special_binary_kernel<F::Igamma>);
EMBER_REGISTER_KERNEL(igammac, CUDA, special_binary_kernel<F::Igammac>);
EMBER_REGISTER_KERNEL(special_zeta, CUDA, special_binary_kernel<F::Zeta>);
EMBER_REGISTER_KERNEL(special_xlog1py, CUDA, special_binary_kernel<F::Xlog1py>);
EMBER_REGISTER_KERNEL(special_chebyshev_polynomial_t, CUDA, special_binary_kernel<F::ChebyshevT>);
EMBER_REGISTER_KERNEL(special_chebyshev_polynomial_u, CUDA, special_binary_kernel<F::ChebyshevU>);
EMBER_REGISTER_KERNEL(special_chebyshev_polynomial_v, CUDA, special_binary_kernel<F::ChebyshevV>);
EMBER_REGISTER_KERNEL(special_chebyshev_polynomial_w, CUDA, special_binary_kernel<F::ChebyshevW>);
EMBER_REGISTER_KERNEL(special_shifted_chebyshev_polynomial_t, CUDA, special_binary_kernel<F::ShiftedChebyshevT>);
EMBER_REGISTER_KERNEL(special_shifted_chebyshev_polynomial_u, CUDA, special_binary_kernel<F::ShiftedChebyshevU>);
EMBER_REGISTER_KERNEL(special_shifted_chebyshev_polynomial_v, CUDA, special_binary_kernel<F::ShiftedChebyshevV>);
EMBER_REGISTER_KERNEL(special_shifted_chebyshev_polynomial_w, CUDA, special_binary_kernel<F::ShiftedChebyshevW>);
EMBER_REGISTER_KERNEL(special_hermite_polynomial_h, CUDA, special_binary_kernel<F::HermiteH>);
EMBER_REGISTER_KERNEL(special_hermite_polynomial_he, CUDA, special_binary_kernel<F::HermiteHe>);
EMBER_REGISTER_KERNEL(special_laguerre_polynomial_l, CUDA, special_binary_kernel<F::LaguerreL>);
EMBER_REGISTER_KERNEL(special_legendre_polynomial_p, CUDA, special_binary_kernel<F::LegendreP>);

}  // namespace
}  // namespace ember::cuda
