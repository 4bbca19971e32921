// Kernels of the activations of ops/activation.h and of their backward ops
// (formulas: kernels/activation_math.h, shared with CUDA); those without attrs
// (hardsigmoid, hardswish, mish, logsigmoid) are structured, generated from their rows. Forward ops are float-only
// but hardtanh and threshold, which keep self's dtype; backward ops take grad_output
// and self of one floating dtype.
#include "kernels/activation_math.h"
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
  const HardtanhArgs a = HardtanhArgs::from(c);
  double lo = a.min_val.to_double(), hi = a.max_val.to_double();
  same_dtype_unary<false>(c, [lo, hi](auto x) {
    using T = decltype(x);
    return hardtanh_value(x, saturating_bound<T>(lo), saturating_bound<T>(hi));
  });
}

// lambd is rounded to self's dtype first, as torch compares in it.
void softshrink_kernel(OpCall& c) {
  const SoftshrinkArgs a = SoftshrinkArgs::from(c);
  double lambd = rounded_to(c.in(0).dtype(), a.lambd.to_double());
  float_unary(c, [lambd](auto x) { return softshrink_value(x, static_cast<decltype(x)>(lambd)); });
}
void hardshrink_kernel(OpCall& c) {
  const HardshrinkArgs a = HardshrinkArgs::from(c);
  double lambd = rounded_to(c.in(0).dtype(), a.lambd.to_double());
  float_unary(c, [lambd](auto x) { return hardshrink_value(x, static_cast<decltype(x)>(lambd)); });
}
void threshold_kernel(OpCall& c) {
  const ThresholdArgs a = ThresholdArgs::from(c);
  double threshold = a.threshold.to_double(), value = a.value.to_double();
  same_dtype_unary<false>(c, [threshold, value](auto x) {
    using T = decltype(x);
    return threshold_value(x, saturating_bound<T>(threshold), saturating_bound<T>(value));
  });
}

void elu_backward_kernel(OpCall& c) {
  EluParams k = elu_params<EluBackwardArgs>(c);
  float_unary_backward(c, [k](auto g, auto x) { return elu_grad(g, x, k.template as<decltype(x)>()); });
}
void hardtanh_backward_kernel(OpCall& c) {
  const HardtanhBackwardArgs a = HardtanhBackwardArgs::from(c);
  double lo = a.min_val.to_double(), hi = a.max_val.to_double();
  float_unary_backward(c, [lo, hi](auto g, auto x) {
    using T = decltype(x);
    return hardtanh_grad(g, x, static_cast<T>(lo), static_cast<T>(hi));
  });
}
void hardshrink_backward_kernel(OpCall& c) {
  const HardshrinkBackwardArgs a = HardshrinkBackwardArgs::from(c);
  double lambd = rounded_to(c.in(1).dtype(), a.lambd.to_double());
  float_unary_backward(c, [lambd](auto g, auto x) { return shrink_grad(g, x, static_cast<decltype(x)>(lambd)); });
}

EMBER_REGISTER_KERNEL(elu, CPU, elu_kernel);
EMBER_REGISTER_KERNEL(hardtanh, CPU, hardtanh_kernel);
EMBER_REGISTER_KERNEL(softshrink, CPU, softshrink_kernel);
EMBER_REGISTER_KERNEL(hardshrink, CPU, hardshrink_kernel);
EMBER_REGISTER_KERNEL(threshold, CPU, threshold_kernel);
EMBER_REGISTER_KERNEL(elu_backward, CPU, elu_backward_kernel);
EMBER_REGISTER_KERNEL(hardtanh_backward, CPU, hardtanh_backward_kernel);
EMBER_REGISTER_KERNEL(hardshrink_backward, CPU, hardshrink_backward_kernel);

}  // namespace
}  // namespace ember::cpu
