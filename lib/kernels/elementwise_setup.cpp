// Outputs and operands of the elementwise kernels, CPU and CUDA (Note [Elementwise kernels]).
#include "kernels/elementwise_setup.h"

#include "kernels/elementwise_math.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"

namespace ember {

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

BinarySetup setup_binary(OpCall& c, DType compute, DType out_dtype, bool round_number) {
  const Tensor& a = c.in(0);
  const Tensor& b = c.in(1);
  ElementwiseOutput o = a.sizes() == b.sizes()
                            ? prepare_output(c, a.sizes(), out_dtype)
                            : prepare_output(c, broadcast_shapes(a.sizes(), b.sizes(), c.name()), out_dtype);
  BinaryOperands ops = prepare_binary(a, b, compute, o.out);
  if (round_number && (compute == kFloat16 || compute == kBFloat16) && ops.scalar) {
    Tensor& number = ops.scalar == 1 ? ops.a : ops.b;
    if (number.dtype() != compute) number = number.to(compute);
  }
  return {std::move(o), std::move(ops)};
}

DimVector broadcast3(const Tensor& a, const Tensor& b, const Tensor& c, const char* op) {
  return broadcast_shapes(broadcast_shapes(a.sizes(), b.sizes(), op), c.sizes(), op);
}

ClampSetup setup_clamp(OpCall& c) {
  const Tensor& self = c.in(0);
  const Tensor& lo = c.in(1);
  const Tensor& hi = c.in(2);
  DType dt = result_type({&self, &lo, &hi});
  DimVector shape = self.sizes();
  if (lo.defined()) shape = broadcast_shapes(shape, lo.sizes(), "clamp");
  if (hi.defined()) shape = broadcast_shapes(shape, hi.sizes(), "clamp");
  ElementwiseOutput o = prepare_output(c, shape, dt);
  Tensor in = prepare_operand(self, dt, o.out);
  bool numbers = (!lo.defined() || is_scalar_operand(lo)) && (!hi.defined() || is_scalar_operand(hi));
  return {std::move(o), std::move(in), dt, numbers};
}

WhereSetup setup_where(OpCall& c) {
  const Tensor& cond = c.in(0);
  DType dt = result_type(c.in(1), c.in(2));
  ElementwiseOutput o = prepare_output(c, broadcast3(cond, c.in(1), c.in(2), "where"), dt);
  Tensor m = prepare_operand(cond, kBool, o.out);
  Tensor x = prepare_operand(c.in(1), dt, o.out), y = prepare_operand(c.in(2), dt, o.out);
  return {std::move(o), std::move(m), std::move(x), std::move(y), dt};
}

Tensor clamp_bound(const Tensor& bound, DType dtype, const Tensor& out, bool upper) {
  if (bound.defined()) return prepare_operand(bound, dtype, out);
  Scalar open;
  EMBER_DISPATCH_NUMERIC(dtype, "clamp", [&] { open = Scalar(open_bound<opmath_t<scalar_t>>(upper)); });
  return full({}, open, TensorOptions(dtype));
}

}  // namespace ember
