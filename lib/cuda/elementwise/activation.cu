// Activation kernels on CUDA: relu, gelu (erf and tanh forms), silu, softplus,
// leaky_relu, and relu's backward threshold_backward (cpu/activation.cpp,
// cpu/binary.cpp; formulas: kernels/elementwise_math.h).
#include "kernels/elementwise_math.h"
#include "cuda/elementwise/helpers.cuh"
#include "dispatch/args/elementwise.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cuda {
namespace {

struct Relu {
  template <typename T> __device__ T operator()(T x) const { return relu_value(x); }
};
struct Gelu {
  template <typename T> __device__ T operator()(T x) const { return gelu_value(x); }
};
struct GeluTanh {
  template <typename T> __device__ T operator()(T x) const { return gelu_tanh_value(x); }
};
struct Silu {
  template <typename T> __device__ T operator()(T x) const { return silu_value(x); }
};
// The parameters are converted to the opmath type per element, as the CPU does.
struct Softplus {
  double beta, threshold;
  template <typename T> __device__ T operator()(T x) const {
    return softplus_value(x, static_cast<T>(beta), static_cast<T>(threshold));
  }
};
struct LeakyRelu {
  double slope;
  template <typename T> __device__ T operator()(T x) const { return leaky_relu_value(x, static_cast<T>(slope)); }
};

void relu_kernel(OpCall& c) { same_dtype_unary<DTypes::Numeric>(c, Relu{}); }

void gelu_kernel(OpCall& c) {
  const GeluArgs a = GeluArgs::from(c);
  if (a.approximate == "tanh") float_unary(c, GeluTanh{});
  else float_unary(c, Gelu{});
}

void silu_kernel(OpCall& c) { float_unary(c, Silu{}); }
void softplus_kernel(OpCall& c) {
  const SoftplusArgs a = SoftplusArgs::from(c);
  float_unary(c, Softplus{a.beta.to_double(), a.threshold.to_double()});
}
void leaky_relu_kernel(OpCall& c) {
  const LeakyReluArgs a = LeakyReluArgs::from(c);
  float_unary(c, LeakyRelu{a.negative_slope.to_double()});
}

// grad where self > threshold else 0, in grad's (float) dtype.
template <typename O>
struct ThresholdBackward {
  O threshold;
  __device__ O operator()(O g, O x) const { return x > threshold ? g : O(0); }
};

void threshold_backward_kernel(OpCall& c) {
  DType dt = c.in(0).dtype();
  BinarySetup s = setup_binary(c, dt, dt);
  const ThresholdBackwardArgs a = ThresholdBackwardArgs::from(c);
  dispatch<DTypes::Floating>(dt, c.name(), [&](auto tag) {
    using T = decltype(tag);
    using O = opmath_t<T>;
    run_binary<T>(s, ThresholdBackward<O>{a.threshold.to<O>()});
  });
  s.output.finish();
}

EMBER_REGISTER_KERNEL(relu, CUDA, relu_kernel);
EMBER_REGISTER_KERNEL(gelu, CUDA, gelu_kernel);
EMBER_REGISTER_KERNEL(silu, CUDA, silu_kernel);
EMBER_REGISTER_KERNEL(softplus, CUDA, softplus_kernel);
EMBER_REGISTER_KERNEL(leaky_relu, CUDA, leaky_relu_kernel);
EMBER_REGISTER_KERNEL(threshold_backward, CUDA, threshold_backward_kernel);

}  // namespace
}  // namespace ember::cuda
