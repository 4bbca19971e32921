// Where an elementwise kernel's result goes and how its operands reach the
// compute dtype: the device-agnostic half of every elementwise kernel, shared
// by the CPU kernels (lib/cpu/) and the CUDA kernels (lib/cuda/elementwise/).
//
// Note [Elementwise kernels]: an elementwise kernel
//   1. picks its compute dtype (result_type of the inputs, or a float type for
//      float-only ops) and its output dtype (the compute dtype, or bool);
//   2. gets its output from prepare_output: the preset one (in-place, out=) or a
//      fresh tensor of the broadcast shape on the call's device. A preset output
//      of another dtype gets a temporary that finish() copies into it (x.add_(y)
//      with x int32 and y int64 computes in int64 and stores int32, as PyTorch does);
//   3. reads a one-element CPU operand once, as a number in opmath (the way
//      PyTorch treats a CPU scalar), so `x + 2` runs a unary loop on the CPU and
//      passes 2 by value to a CUDA kernel; other operands are cast to the compute
//      dtype (a copy only when their dtype differs);
//   4. runs its loop: unary_loop / binary_loop (cpu/elementwise.h) or gpu_kernel
//      (cuda/loops.cuh).
#pragma once
#include "kernels/elementwise_math.h"
#include "kernels/dtype_dispatch.h"
#include "dispatch/dispatcher.h"
#include "ember/tensor.h"

namespace ember {

struct ElementwiseOutput {
  Tensor out;     // where the loop writes, of the dtype asked for
  Tensor target;  // a preset output of another dtype: out is a temporary copied into it
  void finish() const;
};

// See Note [Elementwise kernels], step 2. The op function has checked that the
// preset output has the broadcast shape and can take the dtype.
ElementwiseOutput prepare_output(OpCall& c, const DimVector& shape, DType dtype);

// t in dtype (itself, or a cast copy). A copy is also made when t shares memory
// with out without being out itself, so writing out cannot change t mid-loop.
Tensor prepare_operand(const Tensor& t, DType dtype, const Tensor& out);

// The dtype a float-only op computes in: the input's, or the default float type.
inline DType float_dtype(DType t) { return is_floating(t) ? t : default_dtype(); }

// A one-element CPU operand: loops read it once as a number (step 3).
inline bool is_scalar_operand(const Tensor& t) { return t.numel() == 1 && t.is_cpu(); }

// The value of a one-element CPU tensor of any dtype, converted to T.
template <typename T>
T scalar_value(const Tensor& t) {
  T v{};
  EMBER_DISPATCH_ALL(t.dtype(), "scalar_value", [&] {
    v = convert<T>(*static_cast<const scalar_t*>(t.data_ptr()));
  });
  return v;
}

// A number bound in the compute type; for an integer self, saturated to its range
// first (torch compares in a wider type: clamp(uint8, -1, 2) leaves 0 as it is).
template <typename T, typename O>
O number_bound(const Tensor& bound) {
  if constexpr (std::is_integral_v<T>) return O(saturating_bound<T>(scalar_value<double>(bound)));
  else return scalar_value<O>(bound);
}

// The two operands of a binary op, ready for its loop (step 3): `scalar` says
// which one (if any) is read as a number; the others are in the compute dtype.
struct BinaryOperands {
  Tensor a, b;
  int scalar = 0;  // 0: none, 1: a, 2: b
};
BinaryOperands prepare_binary(const Tensor& a, const Tensor& b, DType compute, const Tensor& out);

// Steps 2 and 3 for a binary op whose inputs are c.in(0) and c.in(1).
struct BinarySetup {
  ElementwiseOutput output;
  BinaryOperands operands;
  const Tensor& out() const { return output.out; }
};
// round_number: a number operand (a wrapped 0-dim CPU tensor) is rounded to a
// float16/bfloat16 compute dtype first, as torch does for comparisons, remainder and
// fmod (bf16 tensor([0.1]) == 0.1 is true there); add, mul and the others read it
// unrounded in opmath, as torch's kernels do.
BinarySetup setup_binary(OpCall& c, DType compute, DType out_dtype, bool round_number = false);

// The broadcast shape of a three-input op's inputs (where, lerp).
DimVector broadcast3(const Tensor& a, const Tensor& b, const Tensor& c, const char* op);

// clamp(self, min, max): the output and self in result_type of the three (a bound
// may be undefined); number_bounds when each bound is missing or a one-element CPU
// tensor, which the kernel reads as a number (else both bounds go through clamp_bound).
struct ClampSetup {
  ElementwiseOutput output;
  Tensor in;
  DType dtype;
  bool number_bounds;
};
ClampSetup setup_clamp(OpCall& c);

// where(condition, self, other): the condition as bool, self and other in their
// result_type, the output of the three's broadcast shape.
struct WhereSetup {
  ElementwiseOutput output;
  Tensor cond, self, other;
  DType dtype;
};
WhereSetup setup_where(OpCall& c);

// A bound of clamp in dtype: the given one (prepare_operand), or for a missing one
// the open bound (-inf / +inf, an integer type's extremes) as a 0-dim CPU tensor,
// which the loops read as a number.
Tensor clamp_bound(const Tensor& bound, DType dtype, const Tensor& out, bool upper);

}  // namespace ember
