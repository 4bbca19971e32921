// CUDA kernels of the activations of ops/activation.h and of their backward ops,
// twins of cpu/activation_extra.cpp (formulas: kernels/activation_math.h). Parameters
// travel as doubles and are converted to the opmath type per element, as on the CPU.
// hardsigmoid, hardswish, mish, logsigmoid are structured, generated from their rows.
#include "kernels/activation_math.h"
#include "core/scalar_range.h"
#include "cuda/elementwise/helpers.cuh"
#include "dispatch/args/elementwise.h"

namespace ember::cuda {
namespace {

// elu and elu_backward hold the same three attrs (EluArgs, EluBackwardArgs).
template <typename Args>
EluParams elu_params(const OpCall& c) {
  Args a = Args::from(c);
  return EluParams::from(a.alpha.to_double(), a.scale.to_double(), a.input_scale.to_double());
}

struct Elu {
  EluParams k;
  template <typename T> __device__ T operator()(T x) const { return elu_value(x, k.template as<T>()); }
};
struct Hardtanh {
  double lo, hi;
  template <typename T> __device__ T operator()(T x) const {
    return hardtanh_value(x, saturating_bound<T>(lo), saturating_bound<T>(hi));
  }
};
struct Softshrink {
  double lambd;
  template <typename T> __device__ T operator()(T x) const { return softshrink_value(x, static_cast<T>(lambd)); }
};
struct Hardshrink {
  double lambd;
  template <typename T> __device__ T operator()(T x) const { return hardshrink_value(x, static_cast<T>(lambd)); }
};
struct Threshold {
  double threshold, value;
  template <typename T> __device__ T operator()(T x) const {
    return threshold_value(x, saturating_bound<T>(threshold), saturating_bound<T>(value));
  }
};

void elu_kernel(OpCall& c) { float_unary(c, Elu{elu_params<EluArgs>(c)}); }
void hardtanh_kernel(OpCall& c) {
  const HardtanhArgs a = HardtanhArgs::from(c);
  same_dtype_unary<DTypes::Numeric>(c, Hardtanh{a.min_val.to_double(), a.max_val.to_double()});
}
// lambd is rounded to self's dtype first, as torch compares in it.
void softshrink_kernel(OpCall& c) {
  const SoftshrinkArgs a = SoftshrinkArgs::from(c);
  float_unary(c, Softshrink{rounded_to(c.in(0).dtype(), a.lambd.to_double())});
}
void hardshrink_kernel(OpCall& c) {
  const HardshrinkArgs a = HardshrinkArgs::from(c);
  float_unary(c, Hardshrink{rounded_to(c.in(0).dtype(), a.lambd.to_double())});
}
void threshold_kernel(OpCall& c) {
  const ThresholdArgs a = ThresholdArgs::from(c);
  same_dtype_unary<DTypes::Numeric>(c, Threshold{a.threshold.to_double(), a.value.to_double()});
}

// Backward functors: (grad, self) in opmath values.
struct EluBackward {
  EluParams k;
  template <typename T> __device__ T operator()(T g, T x) const { return elu_grad(g, x, k.template as<T>()); }
};
struct HardtanhBackward {
  double lo, hi;
  template <typename T> __device__ T operator()(T g, T x) const {
    return hardtanh_grad(g, x, static_cast<T>(lo), static_cast<T>(hi));
  }
};
struct ShrinkBackward {
  double lambd;
  template <typename T> __device__ T operator()(T g, T x) const { return shrink_grad(g, x, static_cast<T>(lambd)); }
};

void elu_backward_kernel(OpCall& c) { float_unary_backward(c, EluBackward{elu_params<EluBackwardArgs>(c)}); }
void hardtanh_backward_kernel(OpCall& c) {
  const HardtanhBackwardArgs a = HardtanhBackwardArgs::from(c);
  float_unary_backward(c, HardtanhBackward{a.min_val.to_double(), a.max_val.to_double()});
}
void hardshrink_backward_kernel(OpCall& c) {
  const HardshrinkBackwardArgs a = HardshrinkBackwardArgs::from(c);
  float_unary_backward(c, ShrinkBackward{rounded_to(c.in(1).dtype(), a.lambd.to_double())});
}

EMBER_REGISTER_KERNEL(elu, CUDA, elu_kernel);
EMBER_REGISTER_KERNEL(hardtanh, CUDA, hardtanh_kernel);
EMBER_REGISTER_KERNEL(softshrink, CUDA, softshrink_kernel);
EMBER_REGISTER_KERNEL(hardshrink, CUDA, hardshrink_kernel);
EMBER_REGISTER_KERNEL(threshold, CUDA, threshold_kernel);
EMBER_REGISTER_KERNEL(elu_backward, CUDA, elu_backward_kernel);
EMBER_REGISTER_KERNEL(hardtanh_backward, CUDA, hardtanh_backward_kernel);
EMBER_REGISTER_KERNEL(hardshrink_backward, CUDA, hardshrink_backward_kernel);

}  // namespace
}  // namespace ember::cuda
