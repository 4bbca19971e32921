// Outputs and operands of the elementwise kernels (Note [Elementwise kernels]).
#include "cpu/elementwise.h"

#include "ember/ops/factories.h"
#include "ember/ops/views.h"

namespace ember::cpu {

void ElementwiseOutput::finish() const {
  if (!target.defined()) return;
  Tensor t = target;
  copy_(t, out);
}

ElementwiseOutput prepare_output(OpCall& c, const DimVector& shape, DType dtype) {
  if (!c.has_preset_output()) {
    Tensor out = empty(shape, TensorOptions(dtype).device(c.device.value_or(kCPU)));
    c.outputs.push_back(out);
    return {out, Tensor()};
  }
  const Tensor& preset = c.outputs[0];
  if (preset.dtype() == dtype) return {preset, Tensor()};
  return {empty(shape, TensorOptions(dtype).device(preset.device())), preset};
}

namespace {
bool same_view(const Tensor& a, const Tensor& b) {
  return a.data_ptr() == b.data_ptr() && a.sizes() == b.sizes() && a.strides() == b.strides();
}
}  // namespace

Tensor prepare_operand(const Tensor& t, DType dtype, const Tensor& out) {
  if (t.dtype() != dtype) return t.to(dtype);
  if (t.impl()->storage() == out.impl()->storage() && !same_view(t, out)) return t.clone();
  return t;
}

BinaryOperands prepare_binary(const Tensor& a, const Tensor& b, DType compute, const Tensor& out) {
  BinaryOperands ops;
  ops.scalar = is_scalar_operand(b) ? 2 : is_scalar_operand(a) ? 1 : 0;
  ops.a = ops.scalar == 1 ? a : prepare_operand(a, compute, out);
  ops.b = ops.scalar == 2 ? b : prepare_operand(b, compute, out);
  return ops;
}

BinarySetup setup_binary(OpCall& c, DType compute, DType out_dtype) {
  const Tensor& a = c.in(0);
  const Tensor& b = c.in(1);
  ElementwiseOutput o = a.sizes() == b.sizes()
                            ? prepare_output(c, a.sizes(), out_dtype)
                            : prepare_output(c, broadcast_shapes(a.sizes(), b.sizes(), c.name()), out_dtype);
  BinaryOperands ops = prepare_binary(a, b, compute, o.out);
  return {std::move(o), std::move(ops)};
}

}  // namespace ember::cpu
