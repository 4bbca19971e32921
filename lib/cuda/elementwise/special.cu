// The special functions on CUDA: polygamma, i1, frac (acos ... i0 and signbit are
// structured, generated from their rows) and the
// binary hypot ... nextafter (the CPU's: cpu/unary_special.cpp,
// cpu/binary_special.cpp; formulas: kernels/special_math.h, shared by both).
// One functor per family, with the function a launch argument (the same for every
// thread, so no divergence): one kernel per dtype for the family, which keeps the
// build's kernel count down.
#include <cmath>

#include "kernels/special_math.h"
#include "cuda/elementwise/helpers.cuh"
#include "dispatch/args/elementwise.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cuda {
namespace {

enum class Fn { Polygamma, I1, Frac };

struct SpecialUnary {
  Fn fn;
  int64_t n = 0;  // polygamma's order
  template <typename T> __device__ T operator()(T x) const {
    switch (fn) {
      case Fn::Polygamma: return polygamma_value(n, x);
      case Fn::I1: return i1_value(x);
      default: return x - std::trunc(x);  // Frac
    }
  }
};

// Float-only, integer and bool inputs computed in the default float dtype (frac:
// the op function admits float dtypes only, so this keeps the dtype).
template <Fn kFn>
void special_unary_kernel(OpCall& c) { float_unary(c, SpecialUnary{kFn}); }

void polygamma_kernel(OpCall& c) {
  const PolygammaArgs a = PolygammaArgs::from(c);
  float_unary(c, SpecialUnary{Fn::Polygamma, a.n});
}

// ---- binary ---------------------------------------------------------------------------------

enum class Fn2 { Hypot, Logaddexp, Logaddexp2, Copysign, Xlogy };

struct SpecialBinary {
  Fn2 fn;
  template <typename T> __device__ T operator()(T x, T y) const {
    switch (fn) {
      case Fn2::Hypot: return std::hypot(x, y);
      case Fn2::Logaddexp: return logaddexp_value(x, y);
      case Fn2::Logaddexp2: return logaddexp2_value(x, y);
      case Fn2::Copysign: return std::copysign(x, y);
      default: return xlogy_value(x, y);
    }
  }
};

// Computed in result_type(self, other), integer results in the default float dtype
// (copysign, xlogy; the op function refuses them for the others).
template <Fn2 kFn>
void special_binary_kernel(OpCall& c) { float_binary(c, SpecialBinary{kFn}); }

// nextafter steps the storage type's representation (kernels/special_math.h).
template <typename S>
struct Nextafter {
  template <typename T> __device__ T operator()(T x, T y) const { return nextafter_value<S>(x, y); }
};
void nextafter_kernel(OpCall& c) {
  DType dt = result_type(c.in(0), c.in(1));
  BinarySetup s = setup_binary(c, dt, dt);
  dispatch<DTypes::Floating>(dt, c.name(), [&](auto tag) {
    using S = decltype(tag);
    run_binary<S>(s, Nextafter<S>{});
  });
  s.output.finish();
}

struct FExtremum {
  bool max;
  template <typename T> __device__ T operator()(T x, T y) const {
    return max ? fextremum_value<true>(x, y) : fextremum_value<false>(x, y);
  }
};
void fmax_kernel(OpCall& c) { promoted_binary<DTypes::All>(c, FExtremum{true}); }
void fmin_kernel(OpCall& c) { promoted_binary<DTypes::All>(c, FExtremum{false}); }

struct Heaviside {
  template <typename T> __device__ T operator()(T x, T values) const { return heaviside_value(x, values); }
};
void heaviside_kernel(OpCall& c) { promoted_binary<DTypes::All>(c, Heaviside{}); }

struct GcdLcm {
  bool lcm;
  template <typename T> __device__ T operator()(T x, T y) const {
    return lcm ? lcm_value(x, y) : gcd_value(x, y);
  }
};
void gcd_kernel(OpCall& c) { promoted_binary<DTypes::IntegersOnly>(c, GcdLcm{false}); }
void lcm_kernel(OpCall& c) { promoted_binary<DTypes::IntegersOnly>(c, GcdLcm{true}); }

EMBER_REGISTER_KERNEL(polygamma, CUDA, polygamma_kernel);
EMBER_REGISTER_KERNEL(special_i1, CUDA, special_unary_kernel<Fn::I1>);
EMBER_REGISTER_KERNEL(frac, CUDA, special_unary_kernel<Fn::Frac>);
EMBER_REGISTER_KERNEL(hypot, CUDA, special_binary_kernel<Fn2::Hypot>);
EMBER_REGISTER_KERNEL(logaddexp, CUDA, special_binary_kernel<Fn2::Logaddexp>);
EMBER_REGISTER_KERNEL(logaddexp2, CUDA, special_binary_kernel<Fn2::Logaddexp2>);
EMBER_REGISTER_KERNEL(copysign, CUDA, special_binary_kernel<Fn2::Copysign>);
EMBER_REGISTER_KERNEL(xlogy, CUDA, special_binary_kernel<Fn2::Xlogy>);
EMBER_REGISTER_KERNEL(nextafter, CUDA, nextafter_kernel);
EMBER_REGISTER_KERNEL(fmax, CUDA, fmax_kernel);
EMBER_REGISTER_KERNEL(fmin, CUDA, fmin_kernel);
EMBER_REGISTER_KERNEL(heaviside, CUDA, heaviside_kernel);
EMBER_REGISTER_KERNEL(gcd, CUDA, gcd_kernel);
EMBER_REGISTER_KERNEL(lcm, CUDA, lcm_kernel);

}  // namespace
}  // namespace ember::cuda
