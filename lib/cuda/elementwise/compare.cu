// Comparisons (eq, ne, lt, le, gt, ge) and logical and/or/xor on CUDA: computed
// in the inputs' promoted dtype, written as bool (cpu/compare.cpp).
//
// One kernel per dtype serves the six comparisons (and one the three logical
// ops): the operator is a launch argument, the same for every thread, so the
// switch costs no divergence, and the build compiles 20 kernels instead of 90.
#include "cuda/elementwise/helpers.cuh"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cuda {
namespace {

enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };

struct Compare {
  Cmp cmp;
  template <typename T> __device__ bool operator()(T x, T y) const {
    switch (cmp) {
      case Cmp::Eq: return x == y;
      case Cmp::Ne: return x != y;
      case Cmp::Lt: return x < y;
      case Cmp::Le: return x <= y;
      case Cmp::Gt: return x > y;
      default: return x >= y;
    }
  }
};

template <Cmp kCmp>
void compare_kernel(OpCall& c) { promoted_binary<DTypes::All, true, true>(c, Compare{kCmp}); }

// A value is true when it is not zero (nan is true).
enum class Logic { And, Or, Xor };

struct Logical {
  Logic logic;
  template <typename T> __device__ bool operator()(T x, T y) const {
    bool a = x != T(0), b = y != T(0);
    return logic == Logic::And ? (a && b) : logic == Logic::Or ? (a || b) : (a != b);
  }
};

template <Logic kLogic>
void logical_kernel(OpCall& c) { promoted_binary<DTypes::All, true>(c, Logical{kLogic}); }

EMBER_REGISTER_KERNEL(eq, CUDA, compare_kernel<Cmp::Eq>);
EMBER_REGISTER_KERNEL(ne, CUDA, compare_kernel<Cmp::Ne>);
EMBER_REGISTER_KERNEL(lt, CUDA, compare_kernel<Cmp::Lt>);
EMBER_REGISTER_KERNEL(le, CUDA, compare_kernel<Cmp::Le>);
EMBER_REGISTER_KERNEL(gt, CUDA, compare_kernel<Cmp::Gt>);
EMBER_REGISTER_KERNEL(ge, CUDA, compare_kernel<Cmp::Ge>);
EMBER_REGISTER_KERNEL(logical_and, CUDA, logical_kernel<Logic::And>);
EMBER_REGISTER_KERNEL(logical_or, CUDA, logical_kernel<Logic::Or>);
EMBER_REGISTER_KERNEL(logical_xor, CUDA, logical_kernel<Logic::Xor>);

}  // namespace
}  // namespace ember::cuda
