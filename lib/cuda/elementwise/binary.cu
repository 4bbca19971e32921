// Binary arithmetic kernels on CUDA: add, sub, mul (Note [Elementwise kernels] in
// cpu/elementwise.h: the same output and operand rules as the CPU).
#include "core/int_math.h"
#include "cpu/elementwise.h"
#include "cuda/loops.cuh"

namespace ember::cuda {
namespace {

// Runs f over the operands of s with compute type T and output type Out.
template <typename T, typename Out = T, typename F>
void run(const cpu::BinarySetup& s, const F& f) {
  gpu_kernel<Out, T, T>(s.out(), {&s.operands.a, &s.operands.b}, f);
}

void add_sub(OpCall& c, bool subtract) {
  Scalar alpha = c.attr(0).to_scalar();
  DType dt = result_type(c.in(0), c.in(1));
  cpu::BinarySetup s = cpu::setup_binary(c, dt, dt);
  EMBER_DISPATCH_ALL(dt, c.name(), [&] {
    using O = opmath_t<scalar_t>;
    O al = subtract ? wrap_sub(O(0), alpha.to<O>()) : alpha.to<O>();
    if constexpr (std::is_same_v<scalar_t, bool>) al = alpha.to<O>();
    run<scalar_t>(s, [al] EMBER_LAMBDA(O x, O y) { return wrap_add(x, wrap_mul(al, y)); });
  });
  s.output.finish();
}
void add_kernel(OpCall& c) { add_sub(c, false); }
void sub_kernel(OpCall& c) { add_sub(c, true); }

void mul_kernel(OpCall& c) {
  DType dt = result_type(c.in(0), c.in(1));
  cpu::BinarySetup s = cpu::setup_binary(c, dt, dt);
  EMBER_DISPATCH_ALL(dt, "mul", [&] {
    using O = opmath_t<scalar_t>;
    run<scalar_t>(s, [] EMBER_LAMBDA(O x, O y) { return wrap_mul(x, y); });
  });
  s.output.finish();
}

EMBER_REGISTER_KERNEL(add, CUDA, add_kernel);
EMBER_REGISTER_KERNEL(sub, CUDA, sub_kernel);
EMBER_REGISTER_KERNEL(mul, CUDA, mul_kernel);

}  // namespace
}  // namespace ember::cuda
