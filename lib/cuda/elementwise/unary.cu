// Unary kernels on CUDA that keep the input's dtype: neg, abs, sign, floor, ceil,
// trunc, round (the CPU's: cpu/unary.cpp; formulas: kernels/elementwise_math.h). The
// predicates isnan, isinf, isfinite, logical_not are structured (generated).
#include <cmath>
#include <limits>

#include "kernels/elementwise_math.h"
#include "cuda/elementwise/helpers.cuh"
#include "dispatch/args/elementwise.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cuda {
namespace {

// -x and |x| wrap around for the most negative integer instead of overflowing.
struct Neg {
  template <typename T> __device__ T operator()(T x) const { return wrap_neg(x); }
};
struct Abs {
  template <typename T> __device__ T operator()(T x) const { return abs_value(x); }
};
struct Sign {
  template <typename T> __device__ T operator()(T x) const { return sign_value(x); }
};

void neg_kernel(OpCall& c) { same_dtype_unary<DTypes::Numeric>(c, Neg{}); }
void abs_kernel(OpCall& c) { same_dtype_unary<DTypes::Numeric>(c, Abs{}); }
void sign_kernel(OpCall& c) { same_dtype_unary<DTypes::All>(c, Sign{}); }

// ---- rounding: integer tensors come back as they are (a copy); bool is unsupported --------
// One kernel per dtype serves the five roundings: the kind is a launch argument, the
// same for every thread (no divergence), which keeps the build's kernel count down.

enum class Rounding { Floor, Ceil, Trunc, HalfEven, Decimals };

struct Round {
  Rounding kind;
  double scale = 1;  // Decimals: 10^|decimals|, converted to the opmath type per element as on the CPU
  bool negative = false;
  template <typename T> __device__ T operator()(T x) const {
    switch (kind) {
      case Rounding::Floor: return std::floor(x);
      case Rounding::Ceil: return std::ceil(x);
      case Rounding::Trunc: return std::trunc(x);
      case Rounding::HalfEven: return round_half_even(x);
      default: return round_decimals(x, static_cast<T>(scale), negative);
    }
  }
};

void rounding_unary(OpCall& c, const Round& op) {
  DType dt = c.in(0).dtype();
  if (is_floating(dt)) return same_dtype_unary<DTypes::Floating>(c, op);
  if (dt == kBool) throw_unsupported_dtype(c.name(), dt);
  copy_unary(c);
}

void floor_kernel(OpCall& c) { rounding_unary(c, Round{Rounding::Floor}); }
void ceil_kernel(OpCall& c) { rounding_unary(c, Round{Rounding::Ceil}); }
void trunc_kernel(OpCall& c) { rounding_unary(c, Round{Rounding::Trunc}); }

void round_kernel(OpCall& c) {
  const RoundArgs a = RoundArgs::from(c);
  if (a.decimals == 0) return rounding_unary(c, Round{Rounding::HalfEven});
  bool negative = a.decimals < 0;
  double scale = std::pow(10.0, static_cast<double>(negative ? -a.decimals : a.decimals));
  rounding_unary(c, Round{Rounding::Decimals, scale, negative});
}

EMBER_REGISTER_KERNEL(neg, CUDA, neg_kernel);
EMBER_REGISTER_KERNEL(abs, CUDA, abs_kernel);
EMBER_REGISTER_KERNEL(sign, CUDA, sign_kernel);
EMBER_REGISTER_KERNEL(floor, CUDA, floor_kernel);
EMBER_REGISTER_KERNEL(ceil, CUDA, ceil_kernel);
EMBER_REGISTER_KERNEL(trunc, CUDA, trunc_kernel);
EMBER_REGISTER_KERNEL(round, CUDA, round_kernel);

}  // namespace
}  // namespace ember::cuda
