// Shared argument checks and call helpers of the elementwise op functions
// (lib/ops/elementwise_*.cpp). Kernels are in lib/cpu; this is the part that
// validates what the user passed and builds the OpCall.
#pragma once
#include "dispatch/call_inputs.h"
#include "dispatch/dispatcher.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"
#include "kernels/elementwise_setup.h"  // float_dtype, shared with the kernels

namespace ember::elementwise_detail {

// NotImplementedError "op: not implemented for 'Bool'", as PyTorch words a dtype
// that an op has no kernel for.
[[noreturn]] void not_implemented(const char* op, DType t);

[[noreturn]] void undefined_input(const char* op);
inline void check_defined(const char* op, const Tensor& t) {
  if (!t.defined()) undefined_input(op);
}

// The dtype checks of ops torch has no kernel for: NotImplementedError naming the dtype
// (op is the public name, "gelu_" for the in-place form).
inline void check_floating(const char* op, const Tensor& self) {
  check_defined(op, self);
  if (!self.is_floating_point()) not_implemented(op, self.dtype());
}
inline void check_not_bool(const char* op, const Tensor& self) {
  check_defined(op, self);
  if (self.dtype() == kBool) not_implemented(op, kBool);
}

// The inputs of a row, each defined (checked before the op's name is looked up) and
// copied once (call_inputs).
template <typename... Ts>
SmallVector<Tensor, 4> inputs_of(OpId op, const Ts&... tensors) {
  if (__builtin_expect(!(tensors.defined() && ...), 0)) undefined_input(op_name(op));
  return call_inputs(tensors...);
}

// Checks that the result of an in-place op (dtype result, broadcast shape shape)
// can be written into self: the dtype casts, the shapes agree, and no two
// elements of self share memory. op is the in-place name ("add_").
void check_inplace(const char* op, const Tensor& self, DType result, const DimVector& shape);

// Runs call out of place and returns its output.
inline Tensor run(OpCall& call) { return dispatch_one(call); }

// Runs call writing into self (after check_inplace) and returns self.
Tensor& run_inplace(OpCall& call, Tensor& self, DType result, const DimVector& shape);

// The broadcast shape of an in-place op's operands, which must be self's shape.
DimVector inplace_shape(const Tensor& self, const Tensor& other, const char* op);

// A one-input row (self, then attrs): out of place, and in place writing the op's
// result (of dtype `result`) into self.
inline Tensor unary(OpId op, const Tensor& self, SmallVector<Attr, 4> attrs = {}) {
  OpCall call(op, inputs_of(op, self), std::move(attrs));
  return run(call);
}
inline Tensor& unary_(OpId op, Tensor& self, DType result, SmallVector<Attr, 4> attrs = {}) {
  OpCall call(op, inputs_of(op, self), std::move(attrs));
  return run_inplace(call, self, result, self.sizes());
}

// A two-input row: out of place, and self = op(self, other), where the op's result
// (before the cast into self) has dtype `result`; name is the in-place name ("add_").
inline Tensor binary(OpId op, const Tensor& a, const Tensor& b, SmallVector<Attr, 4> attrs = {}) {
  OpCall call(op, inputs_of(op, a, b), std::move(attrs));
  return run(call);
}
inline Tensor& binary_(const char* name, OpId op, Tensor& self, const Tensor& other, DType result,
                       SmallVector<Attr, 4> attrs = {}) {
  DimVector shape = inplace_shape(self, other, name);
  OpCall call(op, inputs_of(op, self, other), std::move(attrs));
  return run_inplace(call, self, result, shape);
}

// ---- the op functions of the structured kernel kinds ---------------------------------
// (kernel = {kind = ...} in a schema row; gen_ops.py writes the calls.) `name` is the
// public name the error messages use (the in-place one for the _ forms).

// unary_float: a float result; integer and bool inputs compute in the default float dtype
// (out of place that is the kernel's rule: the op function is plain unary()).
inline Tensor& unary_float_(const char* name, OpId op, Tensor& self) {
  check_defined(name, self);
  return unary_(op, self, float_dtype(self.dtype()));
}

// unary_float_only: floating inputs only; others raise NotImplementedError naming the dtype.
inline Tensor unary_float_only(const char* name, OpId op, const Tensor& self) {
  check_floating(name, self);
  return unary(op, self);
}
inline Tensor& unary_float_only_(const char* name, OpId op, Tensor& self) {
  check_floating(name, self);
  return unary_(op, self, self.dtype());
}

// backward_float: (grad_output, self) of one floating dtype, and the op's attrs.
Tensor float_unary_backward(OpId op, const Tensor& grad_output, const Tensor& self,
                            SmallVector<Attr, 4> attrs = {});

}  // namespace ember::elementwise_detail
