// Kernels of the activations of ops/activation.h and of their backward ops
// (formulas: core/activation_math.h, shared with CUDA). Forward ops are float-only
// but hardtanh and threshold, which keep self's dtype; backward ops take grad_output
// and self of one floating dtype.
#include "core/activation_math.h"
#include "core/scalar_range.h"
#include "cpu/elementwise.h"
#include "dispatch/args/elementwise.h"
#include "cpu/unary_helpers.h"

namespace ember::cpu {
namespace {

// elu and elu_backward hold the same three attrs (EluArgs, EluBackwardArgs).
template <typename Args>
EluParams elu_params(const OpCall& c) {
  Args a = Args::from(c);
  return EluParams::from(a.alpha.to_double(), a.scale.to_double(), a.input_scale.to_double());
}

void elu_kernel(OpCall& c) {
  EluParams k = elu_params<EluArgs>(c);
  float_unary(c, [k](auto x) { return elu_value(x, k.template as<decltype(x)>()); });
}

// Bounds are converted to self's opmath type (truncated for an integer self, as torch).
void hardtanh_kernel(OpCall& c) {
  double lo = c.attr(0).to_double(), hi = c.attr(1).to_double();
  same_dtype_unary<false>(c, [lo, hi](auto x) {
    using T = decltype(x);
    return hardtanh_value(x, saturating_bound<T>(lo), saturating_bound<T>(hi));
  });
}

void hardsigmoid_kernel(OpCall& c) {
  float_unary(c, [](auto x) { return hardsigmoid_value(x); });
}
void hardswish_kernel(OpCall& c) {
  float_unary(c, [](auto x) { return hardswish_value(x); });
}
void mish_kernel(OpCall& c) {
  float_unary(c, [](auto x) { return mish_value(x); });
}
void logsigmoid_kernel(OpCall& c) {
  float_unary(c, [](auto x) { return logsigmoid_value(x); });
}
// lambd is rounded to self's dtype first, as torch compares in it.
void softshrink_kernel(OpCall& c) {
  double lambd = rounded_to(c.in(0).dtype(), c.attr(0).to_double());
  float_unary(c, [lambd](auto x) { return softshrink_value(x, static_cast<decltype(x)>(lambd)); });
}
void hardshrink_kernel(OpCall& c) {
  double lambd = rounded_to(c.in(0).dtype(), c.attr(0).to_double());
  float_unary(c, [lambd](auto x) { return hardshrink_value(x, static_cast<decltype(x)>(lambd)); });
}
void threshold_kernel(OpCall& c) {
  double threshold = c.attr(0).to_double(), value = c.attr(1).to_double();
  same_dtype_unary<false>(c, [threshold, value](auto x) {
    using T = decltype(x);
    return threshold_value(x, saturating_bound<T>(threshold), saturating_bound<T>(value));
  });
}

// A backward op: f(grad, self) in opmath values, written in grad's dtype.
template <typename F>
void backward_kernel(OpCall& c, const F& f) {
  DType dt = c.in(0).dtype();
  BinarySetup s = setup_binary(c, dt, dt);
  EMBER_DISPATCH_FLOATING(dt, c.name(), [&] {
    using O = opmath_t<scalar_t>;
    binary_op<scalar_t, scalar_t>(s.out(), s.operands, [&f](O g, O x) { return f(g, x); });
  });
  s.output.finish();
}

void elu_backward_kernel(OpCall& c) {
  EluParams k = elu_params<EluBackwardArgs>(c);
  backward_kernel(c, [k](auto g, auto x) { return elu_grad(g, x, k.template as<decltype(x)>()); });
}
void hardtanh_backward_kernel(OpCall& c) {
  double lo = c.attr(0).to_double(), hi = c.attr(1).to_double();
  backward_kernel(c, [lo, hi](auto g, auto x) {
    using T = decltype(x);
    return hardtanh_grad(g, x, static_cast<T>(lo), static_cast<T>(hi));
  });
}
void hardsigmoid_backward_kernel(OpCall& c) {
  backward_kernel(c, [](auto g, auto x) { return hardsigmoid_grad(g, x); });
}
void hardswish_backward_kernel(OpCall& c) {
  backward_kernel(c, [](auto g, auto x) { return hardswish_grad(g, x); });
}
void mish_backward_kernel(OpCall& c) {
  backward_kernel(c, [](auto g, auto x) { return mish_grad(g, x); });
}
void logsigmoid_backward_kernel(OpCall& c) {
  backward_kernel(c, [](auto g, auto x) { return logsigmoid_grad(g, x); });
}
void hardshrink_backward_kernel(OpCall& c) {
  double lambd = rounded_to(c.in(1).dtype(), c.attr(0).to_double());
  backward_kernel(c, [lambd](auto g, auto x) { return shrink_grad(g, x, static_cast<decltype(x)>(lambd)); });
}

EMBER_REGISTER_KERNEL(elu, CPU, elu_kernel);
EMBER_REGISTER_KERNEL(hardtanh, CPU, hardtanh_kernel);
EMBER_REGISTER_KERNEL(hardsigmoid, CPU, hardsigmoid_kernel);
EMBER_REGISTER_KERNEL(hardswish, CPU, hardswish_kernel);
EMBER_REGISTER_KERNEL(mish, CPU, mish_kernel);
EMBER_REGISTER_KERNEL(logsigmoid, CPU, logsigmoid_kernel);
EMBER_REGISTER_KERNEL(softshrink, CPU, softshrink_kernel);
EMBER_REGISTER_KERNEL(hardshrink, CPU, hardshrink_kernel);
EMBER_REGISTER_KERNEL(threshold, CPU, threshold_kernel);
EMBER_REGISTER_KERNEL(elu_backward, CPU, elu_backward_kernel);
EMBER_REGISTER_KERNEL(hardtanh_backward, CPU, hardtanh_backward_kernel);
EMBER_REGISTER_KERNEL(hardsigmoid_backward, CPU, hardsigmoid_backward_kernel);
EMBER_REGISTER_KERNEL(hardswish_backward, CPU, hardswish_backward_kernel);
EMBER_REGISTER_KERNEL(mish_backward, CPU, mish_backward_kernel);
EMBER_REGISTER_KERNEL(logsigmoid_backward, CPU, logsigmoid_backward_kernel);
EMBER_REGISTER_KERNEL(hardshrink_backward, CPU, hardshrink_backward_kernel);

}  // namespace
}  // namespace ember::cpu
