// Binary arithmetic kernels on CUDA: add, sub, mul, maximum, minimum, atan2
// (cpu/binary.cpp: the same output and operand rules, Note [Elementwise kernels]).
// Division and the remainders: division.cu.
#include <cmath>

#include "kernels/elementwise_math.h"
#include "kernels/int_math.h"
#include "cuda/elementwise/helpers.cuh"
#include "dispatch/args/elementwise.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cuda {
namespace {

// add and sub: self +- alpha * other. Integers wrap around on overflow.
void add_sub(OpCall& c, const Scalar& alpha, bool subtract) {
  DType dt = result_type(c.in(0), c.in(1));
  BinarySetup s = setup_binary(c, dt, dt);
  EMBER_DISPATCH_ALL(dt, c.name(), [&] {
    using O = opmath_t<scalar_t>;
    O al = subtract ? wrap_sub(O(0), alpha.to<O>()) : alpha.to<O>();
    if constexpr (std::is_same_v<scalar_t, bool>) al = alpha.to<O>();
    run_binary<scalar_t>(s, [al] EMBER_LAMBDA(O x, O y) { return wrap_add(x, wrap_mul(al, y)); });
  });
  s.output.finish();
}
void add_kernel(OpCall& c) { add_sub(c, AddArgs::from(c).alpha, false); }
void sub_kernel(OpCall& c) { add_sub(c, SubArgs::from(c).alpha, true); }

struct Mul {
  template <typename T> __device__ T operator()(T x, T y) const { return wrap_mul(x, y); }
};
void mul_kernel(OpCall& c) { promoted_binary<DTypes::All>(c, Mul{}); }

struct Atan2 {
  template <typename T> __device__ T operator()(T y, T x) const { return std::atan2(y, x); }
};

void atan2_kernel(OpCall& c) { float_binary(c, Atan2{}); }

// maximum / minimum: a nan in either input gives nan. One kernel per dtype for both
// (which one is a launch argument, the same for every thread).
struct Extremum {
  bool max;
  template <typename T> __device__ T operator()(T x, T y) const {
    return max ? extremum_value<true>(x, y) : extremum_value<false>(x, y);
  }
};
void maximum_kernel(OpCall& c) { promoted_binary<DTypes::All>(c, Extremum{true}); }
void minimum_kernel(OpCall& c) { promoted_binary<DTypes::All>(c, Extremum{false}); }

EMBER_REGISTER_KERNEL(add, CUDA, add_kernel);
EMBER_REGISTER_KERNEL(sub, CUDA, sub_kernel);
EMBER_REGISTER_KERNEL(mul, CUDA, mul_kernel);
EMBER_REGISTER_KERNEL(maximum, CUDA, maximum_kernel);
EMBER_REGISTER_KERNEL(minimum, CUDA, minimum_kernel);
EMBER_REGISTER_KERNEL(atan2, CUDA, atan2_kernel);

}  // namespace
}  // namespace ember::cuda
