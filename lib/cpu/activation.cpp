// Activation kernels: relu, gelu (erf and tanh forms), silu, softplus, leaky_relu.
#include <cmath>

#include "kernels/elementwise_math.h"
#include "cpu/unary_helpers.h"
#include "cpu/vec_math.h"
#include "dispatch/args/elementwise.h"
#include "dispatch/op_ids/elementwise.h"

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
EMBER_REGISTER_KERNEL(silu, CPU, silu_kernel);
EMBER_REGISTER_KERNEL(softplus, CPU, softplus_kernel);
EMBER_REGISTER_KERNEL(leaky_relu, CPU, leaky_relu_kernel);

}  // namespace
}  // namespace ember::cpu
