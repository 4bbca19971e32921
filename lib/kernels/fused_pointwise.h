// Fused pointwise programs: what the deployment runtime's fusion (lib/jit/runtime/
// fusion.h) and a backend's evaluator share, so that lib/jit names no backend.
//
// A program is a list of instructions over registers: registers 0 .. num_inputs-1
// hold the group's inputs, register num_inputs + k is instruction k's result. Each
// instruction applies one per-element formula. A backend fills two registries:
//   - the formula table: for each op a group may hold, how a node's attributes pick a
//     formula (LowerFn); the CPU's is lib/cpu/fused_pointwise_ops.cpp, built from the
//     formulas its eager kernels use;
//   - the evaluator that runs a program over tensors (lib/cpu/fused_pointwise_run.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "dispatch/op_call.h"

namespace ember::kernels::fused {

// out[i] = f(a[i], b[i]) for i < n (b unused by unary formulas); params: 4 doubles.
template <typename T>
using BlockFn = void (*)(T* out, const T* a, const T* b, int64_t n, const double* params);

// Where a binary formula's operands come from: both arrays, or one a single value
// (a[0] or b[0]) read once, as the eager kernels read a one-element operand.
enum BlockLayout : int { kArrays = 0, kFirstScalar = 1, kSecondScalar = 2 };

struct PointwiseFormula {
  const char* name;
  int arity;  // 1 or 2
  BlockFn<float> f32[3];  // by BlockLayout (unary formulas fill kArrays only)
  BlockFn<double> f64[3];
  // The formula of a one-element operand depends on its value, which the eager kernel
  // reads as a double (pow's exponent: 2 squares): such an operand must convert to the
  // compute type exactly, or the loop would see another value than the kernel.
  bool exact_scalars = false;
};

// How a node of an op becomes one instruction: picks the formula from the node's
// attributes and writes the attributes the formula reads into params (4 doubles, zeroed);
// nullptr when the attributes are not supported (the node is then not fused). The node's
// tensor inputs, in order, are the formula's operands (as many as its arity).
using LowerFn = const PointwiseFormula* (*)(const std::vector<Attr>& attrs, double* params);

// A null `lower` registers nothing (an op a table leaves out).
void register_pointwise_op(OpId op, LowerFn lower);
// nullptr for an op fusion does not know.
LowerFn pointwise_lowering(OpId op);
// The ops the table holds.
std::vector<OpId> pointwise_ops();

// One instruction: registers[result] = formula(registers[args[0]], registers[args[1]]).
struct FusedInstr {
  const PointwiseFormula* formula = nullptr;
  int32_t node = -1;                // the graph node it comes from
  int32_t args[2] = {-1, -1};       // operand registers (args[1] unused by unary formulas)
  int32_t result = -1;              // the register it defines
  double params[4] = {0, 0, 0, 0};  // the node's attributes as the formula reads them (alpha, ...)
};

// The operand forms a fused loop reads: the whole shape, one element, or a block of
// trailing dims repeated along the leading ones (a bias row).
enum class OperandForm { Full, Scalar, Trailing, Other };
OperandForm operand_form(const DimVector& operand, const DimVector& shape);
int64_t numel_of(const DimVector& sizes);
// Broadcasts `sizes` into `acc` (numpy's rule); false when they do not broadcast.
bool broadcast_into(DimVector& acc, const DimVector& sizes);

// Runs `program` on `inputs` (one per input register, already checked: defined, on the
// evaluator's device, no autograd) over `shape` in `dtype`, and returns the tensors of
// output_registers in `outputs`. False, having written nothing, when the tensors do not
// qualify (a layout, a one-element operand the formula cannot take).
using FusedRunner = bool (*)(const std::vector<FusedInstr>& program,
                             const std::vector<int32_t>& output_registers,
                             const std::vector<const Tensor*>& inputs, const DimVector& shape,
                             DType dtype, std::vector<Tensor>& outputs);
void register_fused_runner(DeviceType device, FusedRunner run);
// nullptr for a device without an evaluator.
FusedRunner fused_runner(DeviceType device);

}  // namespace ember::kernels::fused
