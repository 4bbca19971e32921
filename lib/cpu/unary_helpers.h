// The three shapes of unary kernel (Note [Elementwise kernels]): float-only ops,
// ops that keep the input's dtype, and predicates with a bool result. Each takes
// the per-element function as a generic lambda over opmath values.
#pragma once
#include <type_traits>

#include "cpu/elementwise.h"

namespace ember::cpu {

// A float-only op. f works on opmath values; vf, when given, is a vectorizable
// float version (cpu/vec_math.h) used for float32, float16 and bfloat16; dense_row
// replaces vf on dense float32 rows (see unary_loop).
template <typename F, typename VF = std::nullptr_t, typename DenseRow = std::nullptr_t>
void float_unary(OpCall& c, const F& f, const VF& vf = nullptr, const DenseRow& dense_row = nullptr) {
  const Tensor& self = c.in(0);
  DType dt = float_dtype(self.dtype());
  ElementwiseOutput o = prepare_output(c, self.sizes(), dt);
  Tensor in = prepare_operand(self, dt, o.out);
  EMBER_DISPATCH_FLOATING(dt, c.name(), [&] {
    using O = opmath_t<scalar_t>;
    if constexpr (std::is_same_v<O, float> && !std::is_null_pointer_v<VF>) {
      if constexpr (std::is_same_v<scalar_t, float>)
        unary_loop(o.out, in, [vf](float x) -> float { return vf(x); }, dense_row);
      else
        unary_loop(o.out, in, [vf](scalar_t x) -> scalar_t { return scalar_t(vf(float(x))); });
    } else {
      unary_loop(o.out, in, [f](scalar_t x) -> scalar_t { return scalar_t(f(O(x))); });
    }
  });
  o.finish();
}

template <typename T, typename F>
void map_same_dtype(const Tensor& out, const Tensor& in, const F& f) {
  using O = opmath_t<T>;
  unary_loop(out, in, [f](T x) -> T { return convert<T>(f(O(x))); });
}

// An op whose result has self's dtype (every dtype but bool unless kWithBool).
template <bool kWithBool, typename F>
void same_dtype_unary(OpCall& c, const F& f) {
  const Tensor& self = c.in(0);
  DType dt = self.dtype();
  ElementwiseOutput o = prepare_output(c, self.sizes(), dt);
  Tensor in = prepare_operand(self, dt, o.out);
  if constexpr (kWithBool) {
    EMBER_DISPATCH_ALL(dt, c.name(), [&] { map_same_dtype<scalar_t>(o.out, in, f); });
  } else {
    EMBER_DISPATCH_NUMERIC(dt, c.name(), [&] { map_same_dtype<scalar_t>(o.out, in, f); });
  }
  o.finish();
}

// A predicate: f(opmath value) -> bool, for inputs of any dtype.
template <typename F>
void predicate_unary(OpCall& c, const F& f) {
  const Tensor& self = c.in(0);
  ElementwiseOutput o = prepare_output(c, self.sizes(), kBool);
  Tensor in = prepare_operand(self, self.dtype(), o.out);
  EMBER_DISPATCH_ALL(self.dtype(), c.name(), [&] {
    using O = opmath_t<scalar_t>;
    unary_loop(o.out, in, [f](scalar_t x) -> bool { return f(O(x)); });
  });
  o.finish();
}

// The backward of a float-only unary op: f(grad, self) in opmath values, written in
// grad's dtype (grad_output and self share one floating dtype: the op function checks).
template <typename F>
void float_unary_backward(OpCall& c, const F& f) {
  DType dt = c.in(0).dtype();
  BinarySetup s = setup_binary(c, dt, dt);
  EMBER_DISPATCH_FLOATING(dt, c.name(), [&] {
    using O = opmath_t<scalar_t>;
    binary_op<scalar_t, scalar_t>(s.out(), s.operands, [&f](O g, O x) { return f(g, x); });
  });
  s.output.finish();
}

}  // namespace ember::cpu
