// The shapes of elementwise kernel on CUDA, twins of cpu/unary_helpers.h: float-only
// unary ops, ops that keep the input's dtype, predicates, and binary ops. The
// output and operand rules are the CPU's (kernels/elementwise_setup.h, Note
// [Elementwise kernels]); the loop is gpu_kernel (cuda/loops.cuh).
//
// An op is a functor whose __device__ operator() takes opmath values (float for
// float16 and bfloat16) and returns one: a functor rather than a lambda, so that
// one helper can instantiate it for every dtype (nvcc allows no __device__ lambda
// inside a generic lambda). Parameters of the op (a slope, a bound) are members.
#pragma once
#include "cuda/loops.cuh"
#include "dispatch/dispatcher.h"
#include "ember/ops/views.h"
#include "kernels/elementwise_setup.h"

namespace ember::cuda {

// The dtypes a kernel is instantiated for: those of the EMBER_DISPATCH_* macros
// (Integral: integers and bool), and IntegersOnly.
enum class DTypes { All, Numeric, Floating, Integral, IntegersOnly };

// Calls body(scalar_t{}) for dt's element type, or raises dt unsupported by `op`.
template <DTypes kSet, typename Body>
void dispatch(DType dt, const char* op, const Body& body) {
  if constexpr (kSet == DTypes::All) EMBER_DISPATCH_ALL(dt, op, [&] { body(scalar_t{}); })
  else if constexpr (kSet == DTypes::Numeric) EMBER_DISPATCH_NUMERIC(dt, op, [&] { body(scalar_t{}); })
  else if constexpr (kSet == DTypes::Floating) EMBER_DISPATCH_FLOATING(dt, op, [&] { body(scalar_t{}); })
  else if constexpr (kSet == DTypes::Integral) EMBER_DISPATCH_INTEGRAL(dt, op, [&] { body(scalar_t{}); })
  else switch (dt) {
    EMBER_INT_CASES([&] { body(scalar_t{}); })
    default: throw_unsupported_dtype(op, dt);
  }
}

// A float-only op (exp, gelu, ...): computed in self's dtype, or in the default
// float dtype for integer and bool inputs (cast first, as on the CPU).
template <typename Op>
void float_unary(OpCall& c, const Op& op) {
  const Tensor& self = c.in(0);
  DType dt = float_dtype(self.dtype());
  ElementwiseOutput o = prepare_output(c, self.sizes(), dt);
  Tensor in = prepare_operand(self, dt, o.out);
  dispatch<DTypes::Floating>(dt, c.name(), [&](auto tag) {
    using T = decltype(tag);
    gpu_kernel<T, T>(o.out, {&in}, op);
  });
  o.finish();
}

// A copy of self in its dtype, for the dtypes an op leaves as they are (floor of
// an integer tensor, nan_to_num of one): no kernel is instantiated for them.
inline void copy_unary(OpCall& c) {
  const Tensor& self = c.in(0);
  ElementwiseOutput o = prepare_output(c, self.sizes(), self.dtype());
  Tensor in = prepare_operand(self, self.dtype(), o.out);
  if (in.data_ptr() != o.out.data_ptr()) copy_(o.out, in);  // else in place: nothing to do
  o.finish();
}

// An op whose result has self's dtype, for the dtypes kSet.
template <DTypes kSet, typename Op>
void same_dtype_unary(OpCall& c, const Op& op) {
  const Tensor& self = c.in(0);
  DType dt = self.dtype();
  ElementwiseOutput o = prepare_output(c, self.sizes(), dt);
  Tensor in = prepare_operand(self, dt, o.out);
  dispatch<kSet>(dt, c.name(), [&](auto tag) {
    using T = decltype(tag);
    gpu_kernel<T, T>(o.out, {&in}, op);
  });
  o.finish();
}

// A predicate: a bool result, for inputs of the dtypes kSet.
template <DTypes kSet, typename Op>
void predicate_unary(OpCall& c, const Op& op) {
  const Tensor& self = c.in(0);
  ElementwiseOutput o = prepare_output(c, self.sizes(), kBool);
  Tensor in = prepare_operand(self, self.dtype(), o.out);
  dispatch<kSet>(self.dtype(), c.name(), [&](auto tag) {
    using T = decltype(tag);
    gpu_kernel<bool, T>(o.out, {&in}, op);
  });
  o.finish();
}

// out = op(a, b) over the operands of s in compute type T; a one-element CPU
// operand (a Python number) is carried to the kernel as a value.
template <typename T, typename Out = T, typename Op>
void run_binary(const BinarySetup& s, const Op& op) {
  gpu_kernel<Out, T, T>(s.out(), {&s.operands.a, &s.operands.b}, op);
}

// A binary op computed in result_type(self, other) for the dtypes kSet, written
// in that dtype (kBoolResult false) or as bool; kRoundNumber: see setup_binary.
template <DTypes kSet, bool kBoolResult = false, bool kRoundNumber = false, typename Op>
void promoted_binary(OpCall& c, const Op& op) {
  DType dt = result_type(c.in(0), c.in(1));
  BinarySetup s = setup_binary(c, dt, kBoolResult ? kBool : dt, kRoundNumber);
  dispatch<kSet>(dt, c.name(), [&](auto tag) {
    using T = decltype(tag);
    run_binary<T, std::conditional_t<kBoolResult, bool, T>>(s, op);
  });
  s.output.finish();
}

// A float-only binary op (true division, atan2): computed in result_type(self,
// other), or in the default float dtype when that is an integer type or bool.
template <typename Op>
void float_binary(OpCall& c, const Op& op) {
  DType dt = float_dtype(result_type(c.in(0), c.in(1)));
  BinarySetup s = setup_binary(c, dt, dt);
  dispatch<DTypes::Floating>(dt, c.name(), [&](auto tag) { run_binary<decltype(tag)>(s, op); });
  s.output.finish();
}

// The backward of a float-only unary op: op(grad, self) in opmath values (grad_output
// and self share one floating dtype: the op function checks), as cpu/unary_helpers.h.
template <typename Op>
void float_unary_backward(OpCall& c, const Op& op) {
  DType dt = c.in(0).dtype();
  BinarySetup s = setup_binary(c, dt, dt);
  dispatch<DTypes::Floating>(dt, c.name(), [&](auto tag) { run_binary<decltype(tag)>(s, op); });
  s.output.finish();
}

}  // namespace ember::cuda
