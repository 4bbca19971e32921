// pow on CUDA: tensor ** tensor, tensor ** number (the CPU's fast paths for the
// common exponents), number ** tensor (cpu/pow.cpp). Integers by squaring
// (kernels/int_math.h powi), bool as x || !y.
#include <cmath>

#include "kernels/int_math.h"
#include "cuda/elementwise/helpers.cuh"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cuda {
namespace {

// x ** e for a float exponent known up front. The kind is the same for every
// thread (no divergence): one kernel per dtype covers all of the CPU's fast paths.
enum class Exponent { Square, Cube, One, Sqrt, RSqrt, Reciprocal, InvSquare, Other };

Exponent exponent_kind(double e) {
  if (e == 2.0) return Exponent::Square;
  if (e == 3.0) return Exponent::Cube;
  if (e == 1.0) return Exponent::One;
  if (e == 0.5) return Exponent::Sqrt;
  if (e == -0.5) return Exponent::RSqrt;
  if (e == -1.0) return Exponent::Reciprocal;
  if (e == -2.0) return Exponent::InvSquare;
  return Exponent::Other;
}

struct PowNumberExponent {
  Exponent kind;
  double e;  // converted to the opmath type per element, as the CPU does
  template <typename T> __device__ T operator()(T x) const {
    switch (kind) {
      case Exponent::Square: return x * x;
      case Exponent::Cube: return x * x * x;
      case Exponent::One: return x;
      case Exponent::Sqrt: return std::sqrt(x);
      case Exponent::RSqrt: return T(1) / std::sqrt(x);
      case Exponent::Reciprocal: return T(1) / x;
      case Exponent::InvSquare: return T(1) / (x * x);
      default: return std::pow(x, static_cast<T>(e));
    }
  }
};

struct Pow {
  template <typename T> __device__ T operator()(T x, T y) const {
    if constexpr (std::is_same_v<T, bool>) return x || !y;
    else if constexpr (std::is_floating_point_v<T>) return std::pow(x, y);
    else return powi(x, y);
  }
};

void pow_kernel(OpCall& c) {
  DType dt = result_type(c.in(0), c.in(1));
  BinarySetup s = setup_binary(c, dt, dt);
  dispatch<DTypes::All>(dt, "pow", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_float_v<T>) {
      if (s.operands.scalar == 2) {
        double e = scalar_value<double>(s.operands.b);
        gpu_kernel<T, T>(s.out(), {&s.operands.a}, PowNumberExponent{exponent_kind(e), e});
        return;
      }
    }
    run_binary<T>(s, Pow{});
  });
  s.output.finish();
}

EMBER_REGISTER_KERNEL(pow, CUDA, pow_kernel);

}  // namespace
}  // namespace ember::cuda
