// The derivative table: for each differentiable op, one row saying what the
// forward must save and how to compute input gradients from output gradients.
// Formulas are written with ember ops, so they are differentiable themselves
// (create_graph=True gives higher derivatives). The engine reduces a gradient
// that is broadcast wider than its input (sum over the broadcast dims) and
// casts it to the input's dtype, so formulas need not.
//
//   EMBER_DERIVATIVE(mul, save_inputs(0, 1), {
//     return {ctx.grad(0) * ctx.input(1), ctx.grad(0) * ctx.input(0)};
//   });
#pragma once
#include <cstdint>
#include <initializer_list>

#include "dispatch/op_call.h"
#include "ember/autograd.h"

namespace ember::autograd {

class OpNode;

// What a formula can read: the incoming gradients, the saved tensors, the op's
// attributes and the inputs' shapes and dtypes.
class BackwardCtx {
 public:
  BackwardCtx(OpNode& node, TensorList& grads) : node_(node), grads_(grads) {}
  // The gradient of output i (zeros if none flowed into it).
  Tensor grad(size_t i = 0) const;
  bool has_grad(size_t i) const { return i < grads_.size() && grads_[i].defined(); }
  Tensor input(size_t i) const;   // must be saved (save_inputs)
  Tensor output(size_t i) const;  // must be saved (save_outputs)
  const Attr& attr(size_t i) const;
  size_t num_attrs() const;
  size_t num_inputs() const;  // defined or not (variadic ops: cat, index)
  const DimVector& input_sizes(size_t i) const;
  const DimVector& input_strides(size_t i) const;
  int64_t input_storage_offset(size_t i) const;
  DType input_dtype(size_t i) const;
  bool input_defined(size_t i) const;
  // Whether input i needs a gradient at all (formulas may skip work otherwise).
  bool needs_grad(size_t i) const;

 private:
  OpNode& node_;
  TensorList& grads_;
};

using BackwardFn = TensorList (*)(BackwardCtx& ctx);

struct Derivative {
  BackwardFn fn = nullptr;
  uint32_t save_inputs = 0;   // bit i: input i is saved
  uint32_t save_outputs = 0;  // bit i: output i is saved
  // Outputs never require grad (argmax, comparisons, integer results, random fills).
  bool non_differentiable = false;
  bool is_view = false;  // the output shares the input's storage
};

constexpr uint32_t save_none() { return 0; }
constexpr uint32_t save_inputs(std::initializer_list<int> idx) {
  uint32_t m = 0;
  for (int i : idx) m |= 1u << i;
  return m;
}

void register_derivative(OpId op, Derivative d);
const Derivative* find_derivative(OpId op);  // nullptr: no row (yet)

struct DerivativeRegistrar {
  DerivativeRegistrar(OpId op, Derivative d) { register_derivative(op, d); }
};

}  // namespace ember::autograd

// Row macros. SAVE_IN / SAVE_OUT are bit masks (ember::autograd::save_inputs({0, 1})).
#define EMBER_DERIVATIVE_FULL(op, SAVE_IN, SAVE_OUT, ...)                                 \
  static ::ember::autograd::DerivativeRegistrar ember_derivative_##op(                    \
      ::ember::opid::op,                                                                   \
      ::ember::autograd::Derivative{                                                       \
          [](::ember::autograd::BackwardCtx& ctx) -> ::ember::TensorList __VA_ARGS__,      \
          SAVE_IN, SAVE_OUT, false, false})
#define EMBER_DERIVATIVE(op, SAVE_IN, ...) EMBER_DERIVATIVE_FULL(op, SAVE_IN, 0u, __VA_ARGS__)
#define EMBER_NON_DIFFERENTIABLE(op)                                       \
  static ::ember::autograd::DerivativeRegistrar ember_derivative_##op(     \
      ::ember::opid::op, ::ember::autograd::Derivative{nullptr, 0u, 0u, true, false})
#define EMBER_VIEW_DERIVATIVE(op, ...)                                                     \
  static ::ember::autograd::DerivativeRegistrar ember_derivative_##op(                    \
      ::ember::opid::op,                                                                   \
      ::ember::autograd::Derivative{                                                       \
          [](::ember::autograd::BackwardCtx& ctx) -> ::ember::TensorList __VA_ARGS__,      \
          0u, 0u, false, true})
