// Activation kernels: relu, gelu (erf and tanh forms) and its backward, silu, softplus,
// leaky_relu.
#include <cmath>
#include <type_traits>

#include "kernels/elementwise_math.h"
#include "cpu/parallel.h"
#include "cpu/unary_helpers.h"
#include "cpu/vec_math.h"
#include "dispatch/args/elementwise.h"
#include "dispatch/op_ids/elementwise.h"
#include "ember/ops/factories.h"

namespace ember::cpu {
namespace {

void relu_kernel(OpCall& c) {
  // x < 0 ? 0 : x keeps nan and -0.0 as PyTorch does.
  same_dtype_unary<false>(c, [](auto x) { return relu_value(x); });
}

// x Phi(x), as x erfc(-x / sqrt 2) / 2 (no cancellation in the negative tail); the
// tanh form as x sigmoid(2u), which is x (1 + tanh u) / 2 without cancellation.
void gelu_kernel(OpCall& c) {
  const GeluArgs a = GeluArgs::from(c);
  if (a.approximate == "tanh") {
    float_unary(c, [](auto x) { return gelu_tanh_value(x); }, [](float x) { return vec::gelu_tanh(x); });
  } else {
    float_unary(c, [](auto x) { return gelu_value(x); }, [](float x) { return vec::gelu(x); });
  }
}

// gelu's derivatives: float32 (and the reduced floats, computed in float) take the
// vectorizable forms, float64 the standard functions. Forced inline: a call left in
// the per-ISA loop keeps it scalar (and outside the clones fmaf is a library call).
template <typename T>
EMBER_VEC_INLINE T gelu_grad_value(T x) {
  if constexpr (std::is_same_v<T, float>) {
    return vec::gelu_grad(x);
  } else {  // Phi(x) + x phi(x)
    return T(0.5) * std::erfc(x * T(-0.707106781186547524400844362104849039)) +
           x * std::exp(T(-0.5) * x * x) * T(0.398942280401432677939946059934381868);
  }
}
// y = x s(v), s = sigmoid, v = 2 k (x + c x^3): y' = s + x s (1 - s) v'.
template <typename T>
EMBER_VEC_INLINE T gelu_tanh_grad_value(T x) {
  const T k2 = T(1.59576912160573071175978423973752747), c = T(0.044715);  // 2 sqrt(2 / pi)
  const T v = k2 * (x + c * x * x * x);
  T s;
  if constexpr (std::is_same_v<T, float>) s = vec::sigmoid(v);
  else s = T(1) / (T(1) + std::exp(-v));
  return s + x * s * (T(1) - s) * (k2 * (T(1) + T(3) * c * x * x));
}

// The erf form's float32 rows: the per-element function (two exps) called from a loop
// of its own. Through binary_op's loops GCC's inliner stopped at their wrappers and left
// a call per element (scalar, 25x slower); the tanh form inlines there.
EMBER_TARGET_CLONES void gelu_grad_rows(float* out, const float* g, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = g[i] * vec::gelu_grad(x[i]);
}

// One pass: grad_output times gelu's derivative (the composite form took about ten ops).
void gelu_backward_kernel(OpCall& c) {
  const Tensor &grad = c.in(0), &self = c.in(1);
  if (GeluBackwardArgs::from(c).approximate == "tanh") {
    float_unary_backward(c, [](auto g, auto x) { return g * gelu_tanh_grad_value(x); });
  } else if (c.outputs.empty() && self.dtype() == kFloat32 && grad.dtype() == kFloat32 &&
             grad.sizes() == self.sizes() && grad.is_contiguous() && self.is_contiguous()) {
    Tensor out = empty(self.sizes(), TensorOptions(kFloat32).device(self.device()));
    const float* gp = static_cast<const float*>(grad.data_ptr());
    const float* xp = static_cast<const float*>(self.data_ptr());
    float* op = static_cast<float*>(out.data_ptr());
    parallel_for(0, self.numel(), kGrainSize,
                 [&](int64_t b0, int64_t b1) { gelu_grad_rows(op + b0, gp + b0, xp + b0, b1 - b0); });
    c.outputs.push_back(out);
  } else {
    float_unary_backward(c, [](auto g, auto x) { return g * gelu_grad_value(x); });
  }
}

void silu_kernel(OpCall& c) {
  float_unary(c, [](auto x) { return silu_value(x); }, [](float x) { return vec::silu(x); });
}

// log(1 + exp(beta x)) / beta, or x itself where beta x > threshold (PyTorch's formula).
void softplus_kernel(OpCall& c) {
  const SoftplusArgs a = SoftplusArgs::from(c);
  double beta = a.beta.to_double(), threshold = a.threshold.to_double();
  float_unary(c, [beta, threshold](auto x) {
    using T = decltype(x);
    return softplus_value(x, static_cast<T>(beta), static_cast<T>(threshold));
  }, [b = float(beta), t = float(threshold)](float x) {
    float bx = x * b;
    float soft = vec::log1p(vec::exp(bx)) / b;
    return bx > t ? x : soft;
  });
}

void leaky_relu_kernel(OpCall& c) {
  const LeakyReluArgs a = LeakyReluArgs::from(c);
  double slope = a.negative_slope.to_double();
  float_unary(c, [slope](auto x) {
    using T = decltype(x);
    return leaky_relu_value(x, static_cast<T>(slope));
  });
}

EMBER_REGISTER_KERNEL(relu, CPU, relu_kernel);
EMBER_REGISTER_KERNEL(gelu, CPU, gelu_kernel);
EMBER_REGISTER_KERNEL(gelu_backward, CPU, gelu_backward_kernel);
EMBER_REGISTER_KERNEL(silu, CPU, silu_kernel);
EMBER_REGISTER_KERNEL(softplus, CPU, softplus_kernel);
EMBER_REGISTER_KERNEL(leaky_relu, CPU, leaky_relu_kernel);

}  // namespace
}  // namespace ember::cpu
