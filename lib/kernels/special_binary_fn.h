// The binary special functions with hand-written kernels, as one switch on a value
// every element shares: the CPU (cpu/special_binary.cpp) and CUDA
// (cuda/elementwise/special_binary.cu) kernels each compile one loop per dtype for the
// whole family instead of one per function, which keeps build time and binary size
// down (these formulas are long and never vectorize).
#pragma once
#include "kernels/element_types.h"
#include "kernels/special_gamma_incomplete_math.h"
#include "kernels/special_math.h"
#include "kernels/special_polynomial_math.h"

namespace ember {

enum class SpecialBinaryFn {
  Igamma, Igammac, Zeta, Xlog1py,
  ChebyshevT, ChebyshevU, ChebyshevV, ChebyshevW,
  ShiftedChebyshevT, ShiftedChebyshevU, ShiftedChebyshevV, ShiftedChebyshevW,
  HermiteH, HermiteHe, LaguerreL, LegendreP,
};

template <typename T>
EMBER_HOST_DEVICE inline T special_binary_value(SpecialBinaryFn fn, T x, T y) {
  switch (fn) {
    case SpecialBinaryFn::Igamma: return igamma_value(x, y);
    case SpecialBinaryFn::Igammac: return igammac_value(x, y);
    case SpecialBinaryFn::Zeta: return hurwitz_zeta(x, y);
    case SpecialBinaryFn::Xlog1py: return xlog1py_value(x, y);
    case SpecialBinaryFn::ChebyshevT: return chebyshev_polynomial_t_value(x, y);
    case SpecialBinaryFn::ChebyshevU: return chebyshev_polynomial_u_value(x, y);
    case SpecialBinaryFn::ChebyshevV: return chebyshev_polynomial_v_value(x, y);
    case SpecialBinaryFn::ChebyshevW: return chebyshev_polynomial_w_value(x, y);
    case SpecialBinaryFn::ShiftedChebyshevT: return shifted_chebyshev_polynomial_t_value(x, y);
    case SpecialBinaryFn::ShiftedChebyshevU: return shifted_chebyshev_polynomial_u_value(x, y);
    case SpecialBinaryFn::ShiftedChebyshevV: return shifted_chebyshev_polynomial_v_value(x, y);
    case SpecialBinaryFn::ShiftedChebyshevW: return shifted_chebyshev_polynomial_w_value(x, y);
    case SpecialBinaryFn::HermiteH: return hermite_polynomial_h_value(x, y);
    case SpecialBinaryFn::HermiteHe: return hermite_polynomial_he_value(x, y);
    case SpecialBinaryFn::LaguerreL: return laguerre_polynomial_l_value(x, y);
    default: return legendre_polynomial_p_value(x, y);
  }
}

}  // namespace ember
