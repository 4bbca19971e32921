// Each op's autocast policy, read from its op schema row (`autocast` for CUDA,
// `autocast_cpu` for the CPU: lib/dispatch/schema/README.md), and the dtype an input
// reaches the kernel with, for op functions whose checks run before the dispatcher.
#pragma once
#include <cstdint>

#include "dispatch/autocast_hook.h"
#include "dispatch/op_table.h"
#include "ember/tensor.h"

namespace ember::autocast {

enum class Policy : uint8_t {
  None,            // the op runs in its inputs' dtypes
  LowerPrecision,  // floating inputs (not float64) cast to the region's dtype
  Fp32,            // floating inputs (not float64) cast to float32
  Promote,         // floating inputs (not float64) cast to the widest among them
  Banned,          // refused inside a region (binary_cross_entropy on CUDA, as torch)
};

Policy policy(OpId op, DeviceType device);

DType input_dtype_slow(OpId op, const Tensor& t);
// The dtype `t` has when it reaches `op`'s kernel: its own outside autocast, the cast
// one inside (for LowerPrecision and Fp32 ops). The matmul and conv functions compare
// these, not the raw dtypes, so a bfloat16 activation meets a float32 weight inside a
// region as it does in torch.
inline DType input_dtype(OpId op, const Tensor& t) {
  if (__builtin_expect(!autocast_active(), 1)) return t.dtype();
  return input_dtype_slow(op, t);
}

}  // namespace ember::autocast
