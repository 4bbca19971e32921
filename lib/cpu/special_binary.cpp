// CPU kernels of torch.special's binary functions: igamma, igammac, zeta, xlog1py and
// the orthogonal polynomials (formulas: kernels/special_binary_fn.h, shared with
// cuda/elementwise/special_binary.cu). Each computes in result_type(self, other),
// integer and bool results in the default float dtype (igamma and igammac refuse
// those in their op functions, as PyTorch).
#include "kernels/special_binary_fn.h"
#include "cpu/elementwise.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cpu {
namespace {

template <SpecialBinaryFn kFn>
void special_binary_kernel(OpCall& c) {
  DType dt = float_dtype(result_type(c.in(0), c.in(1)));
  BinarySetup s = setup_binary(c, dt, dt);
  const SpecialBinaryFn fn = kFn;  // a value, not a template argument: one loop per dtype
  EMBER_DISPATCH_FLOATING(dt, c.name(), [&] {
    using O = opmath_t<scalar_t>;
    binary_op<scalar_t, scalar_t>(s.out(), s.operands, [fn](O x, O y) { return special_binary_value(fn, x, y); });
  });
  s.output.finish();
}

using F = SpecialBinaryFn;
EMBER_REGISTER_KERNEL(igamma, CPU, special_binary_kernel<F::Igamma>);
EMBER_REGISTER_KERNEL(igammac, CPU, special_binary_kernel<F::Igammac>);
EMBER_REGISTER_KERNEL(special_zeta, CPU, special_binary_kernel<F::Zeta>);
EMBER_REGISTER_KERNEL(special_xlog1py, CPU, special_binary_kernel<F::Xlog1py>);
EMBER_REGISTER_KERNEL(special_chebyshev_polynomial_t, CPU, special_binary_kernel<F::ChebyshevT>);
EMBER_REGISTER_KERNEL(special_chebyshev_polynomial_u, CPU, special_binary_kernel<F::ChebyshevU>);
EMBER_REGISTER_KERNEL(special_chebyshev_polynomial_v, CPU, special_binary_kernel<F::ChebyshevV>);
EMBER_REGISTER_KERNEL(special_chebyshev_polynomial_w, CPU, special_binary_kernel<F::ChebyshevW>);
EMBER_REGISTER_KERNEL(special_shifted_chebyshev_polynomial_t, CPU, special_binary_kernel<F::ShiftedChebyshevT>);
EMBER_REGISTER_KERNEL(special_shifted_chebyshev_polynomial_u, CPU, special_binary_kernel<F::ShiftedChebyshevU>);
EMBER_REGISTER_KERNEL(special_shifted_chebyshev_polynomial_v, CPU, special_binary_kernel<F::ShiftedChebyshevV>);
EMBER_REGISTER_KERNEL(special_shifted_chebyshev_polynomial_w, CPU, special_binary_kernel<F::ShiftedChebyshevW>);
EMBER_REGISTER_KERNEL(special_hermite_polynomial_h, CPU, special_binary_kernel<F::HermiteH>);
EMBER_REGISTER_KERNEL(special_hermite_polynomial_he, CPU, special_binary_kernel<F::HermiteHe>);
EMBER_REGISTER_KERNEL(special_laguerre_polynomial_l, CPU, special_binary_kernel<F::LaguerreL>);
EMBER_REGISTER_KERNEL(special_legendre_polynomial_p, CPU, special_binary_kernel<F::LegendreP>);

}  // namespace
}  // namespace ember::cpu
