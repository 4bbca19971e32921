// Float-only unary math on CUDA: exp, expm1, log, log1p, log2, sqrt, rsqrt,
// reciprocal, sin, cos, tan, tanh, sigmoid, erf. Integer and bool inputs give
// the default float dtype (cpu/unary.cpp); CUDA's math library computes them
// (float16 and bfloat16 in float), within a few ulp of the CPU's.
#include <cmath>

#include "kernels/elementwise_math.h"
#include "cuda/elementwise/helpers.cuh"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cuda {
namespace {

// One functor per function: Name{}(x) = expr on an opmath value x of type T.
#define EMBER_FLOAT_FUNCTOR(Name, expr)                                   \
  struct Name {                                                           \
    template <typename T> __device__ T operator()(T x) const { return expr; } \
  }

EMBER_FLOAT_FUNCTOR(Exp, std::exp(x));
EMBER_FLOAT_FUNCTOR(Expm1, std::expm1(x));
EMBER_FLOAT_FUNCTOR(Log, std::log(x));
EMBER_FLOAT_FUNCTOR(Log1p, std::log1p(x));
EMBER_FLOAT_FUNCTOR(Log2, std::log2(x));
EMBER_FLOAT_FUNCTOR(Sqrt, std::sqrt(x));
EMBER_FLOAT_FUNCTOR(Rsqrt, T(1) / std::sqrt(x));  // not rsqrtf: it is not correctly rounded
EMBER_FLOAT_FUNCTOR(Reciprocal, T(1) / x);
EMBER_FLOAT_FUNCTOR(Sin, std::sin(x));
EMBER_FLOAT_FUNCTOR(Cos, std::cos(x));
EMBER_FLOAT_FUNCTOR(Tan, std::tan(x));
EMBER_FLOAT_FUNCTOR(Tanh, std::tanh(x));
EMBER_FLOAT_FUNCTOR(Sigmoid, sigmoid_value(x));
EMBER_FLOAT_FUNCTOR(Erf, std::erf(x));
#undef EMBER_FLOAT_FUNCTOR

void exp_kernel(OpCall& c) { float_unary(c, Exp{}); }
void expm1_kernel(OpCall& c) { float_unary(c, Expm1{}); }
void log_kernel(OpCall& c) { float_unary(c, Log{}); }
void log1p_kernel(OpCall& c) { float_unary(c, Log1p{}); }
void log2_kernel(OpCall& c) { float_unary(c, Log2{}); }
void sqrt_kernel(OpCall& c) { float_unary(c, Sqrt{}); }
void rsqrt_kernel(OpCall& c) { float_unary(c, Rsqrt{}); }
void reciprocal_kernel(OpCall& c) { float_unary(c, Reciprocal{}); }
void sin_kernel(OpCall& c) { float_unary(c, Sin{}); }
void cos_kernel(OpCall& c) { float_unary(c, Cos{}); }
void tan_kernel(OpCall& c) { float_unary(c, Tan{}); }
void tanh_kernel(OpCall& c) { float_unary(c, Tanh{}); }
void sigmoid_kernel(OpCall& c) { float_unary(c, Sigmoid{}); }
void erf_kernel(OpCall& c) { float_unary(c, Erf{}); }

EMBER_REGISTER_KERNEL(exp, CUDA, exp_kernel);
EMBER_REGISTER_KERNEL(expm1, CUDA, expm1_kernel);
EMBER_REGISTER_KERNEL(log, CUDA, log_kernel);
EMBER_REGISTER_KERNEL(log1p, CUDA, log1p_kernel);
EMBER_REGISTER_KERNEL(log2, CUDA, log2_kernel);
EMBER_REGISTER_KERNEL(sqrt, CUDA, sqrt_kernel);
EMBER_REGISTER_KERNEL(rsqrt, CUDA, rsqrt_kernel);
EMBER_REGISTER_KERNEL(reciprocal, CUDA, reciprocal_kernel);
EMBER_REGISTER_KERNEL(sin, CUDA, sin_kernel);
EMBER_REGISTER_KERNEL(cos, CUDA, cos_kernel);
EMBER_REGISTER_KERNEL(tan, CUDA, tan_kernel);
EMBER_REGISTER_KERNEL(tanh, CUDA, tanh_kernel);
EMBER_REGISTER_KERNEL(sigmoid, CUDA, sigmoid_kernel);
EMBER_REGISTER_KERNEL(erf, CUDA, erf_kernel);

}  // namespace
}  // namespace ember::cuda
