// Bitwise kernels on integer and bool tensors: not, and, or, xor, and the
// shifts (integers only; PyTorch's results for out-of-range shift amounts).
#include "cpu/elementwise.h"
#include "kernels/int_math.h"
#include "cpu/unary_helpers.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cpu {
namespace {

template <typename T>
T bit_not(T x) {
  if constexpr (std::is_same_v<T, bool>) return !x;
  else return static_cast<T>(~x);
}

void bitwise_not_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  ElementwiseOutput o = prepare_output(c, self.sizes(), self.dtype());
  Tensor in = prepare_operand(self, self.dtype(), o.out);
  EMBER_DISPATCH_INTEGRAL(self.dtype(), "bitwise_not", [&] {
    unary_loop(o.out, in, [](scalar_t x) -> scalar_t { return bit_not(x); });
  });
  o.finish();
}

template <typename F>
void bitwise_binary(OpCall& c, const F& f) {
  DType dt = result_type(c.in(0), c.in(1));
  BinarySetup s = setup_binary(c, dt, dt);
  EMBER_DISPATCH_INTEGRAL(dt, c.name(), [&] {
    using T = scalar_t;
    binary_op<T, T>(s.out(), s.operands, [f](T x, T y) { return static_cast<T>(f(x, y)); });
  });
  s.output.finish();
}

void and_kernel(OpCall& c) { bitwise_binary(c, [](auto x, auto y) { return x & y; }); }
void or_kernel(OpCall& c) { bitwise_binary(c, [](auto x, auto y) { return x | y; }); }
void xor_kernel(OpCall& c) { bitwise_binary(c, [](auto x, auto y) { return x ^ y; }); }

template <bool kLeft>
void shift_kernel(OpCall& c) {
  DType dt = result_type(c.in(0), c.in(1));
  BinarySetup s = setup_binary(c, dt, dt);
  switch (dt) {
    EMBER_INT_CASES([&] {
      using T = scalar_t;
      binary_op<T, T>(s.out(), s.operands, [](T x, T y) { return kLeft ? shift_left(x, y) : shift_right(x, y); });
    })
    default: throw_unsupported_dtype(c.name(), dt);
  }
  s.output.finish();
}

EMBER_REGISTER_KERNEL(bitwise_not, CPU, bitwise_not_kernel);
EMBER_REGISTER_KERNEL(bitwise_and, CPU, and_kernel);
EMBER_REGISTER_KERNEL(bitwise_or, CPU, or_kernel);
EMBER_REGISTER_KERNEL(bitwise_xor, CPU, xor_kernel);
EMBER_REGISTER_KERNEL(bitwise_left_shift, CPU, shift_kernel<true>);
EMBER_REGISTER_KERNEL(bitwise_right_shift, CPU, shift_kernel<false>);

}  // namespace
}  // namespace ember::cpu
