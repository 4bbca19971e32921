// Bitwise kernels on CUDA: not, and, or, xor on integer and bool tensors, and the
// shifts on integers (PyTorch's results for out-of-range shift amounts, kernels/int_math.h)
// (cpu/bitwise.cpp).
#include "kernels/int_math.h"
#include "cuda/elementwise/helpers.cuh"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cuda {
namespace {

struct BitNot {
  template <typename T> __device__ T operator()(T x) const {
    if constexpr (std::is_same_v<T, bool>) return !x;
    else return static_cast<T>(~x);
  }
};
// One kernel per dtype for and/or/xor, one for the two shifts: the operator is a
// launch argument, the same for every thread (fewer kernels to compile).
enum class Bits { And, Or, Xor };
struct Bitwise {
  Bits op;
  template <typename T> __device__ T operator()(T x, T y) const {
    return static_cast<T>(op == Bits::And ? (x & y) : op == Bits::Or ? (x | y) : (x ^ y));
  }
};
struct Shift {
  bool left;
  template <typename T> __device__ T operator()(T x, T y) const { return left ? shift_left(x, y) : shift_right(x, y); }
};

void bitwise_not_kernel(OpCall& c) { same_dtype_unary<DTypes::Integral>(c, BitNot{}); }

template <Bits kOp>
void bitwise_kernel(OpCall& c) { promoted_binary<DTypes::Integral>(c, Bitwise{kOp}); }

// Shifts take integers only (no bool).
template <bool kLeft>
void shift_kernel(OpCall& c) { promoted_binary<DTypes::IntegersOnly>(c, Shift{kLeft}); }

EMBER_REGISTER_KERNEL(bitwise_not, CUDA, bitwise_not_kernel);
EMBER_REGISTER_KERNEL(bitwise_and, CUDA, bitwise_kernel<Bits::And>);
EMBER_REGISTER_KERNEL(bitwise_or, CUDA, bitwise_kernel<Bits::Or>);
EMBER_REGISTER_KERNEL(bitwise_xor, CUDA, bitwise_kernel<Bits::Xor>);
EMBER_REGISTER_KERNEL(bitwise_left_shift, CUDA, shift_kernel<true>);
EMBER_REGISTER_KERNEL(bitwise_right_shift, CUDA, shift_kernel<false>);

}  // namespace
}  // namespace ember::cuda
