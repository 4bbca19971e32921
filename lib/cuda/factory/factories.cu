// Factory kernels on CUDA: arange, linspace, eye. Each writes a value computed
// from the element's index into the preset output, with the CPU kernel's
// formula (lib/cpu/fill.cpp), so both backends give the same numbers.
#include "kernels/exact_rounding.h"
#include "kernels/dtype_dispatch.h"
#include "cuda/launch.h"
#include "dispatch/args/core.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/core.h"

namespace ember::cuda {
namespace {

// start + step * i in double, rounded to T (floating T, or any T with a floating start/step).
template <typename T>
struct ArangeDouble {
  double start, step;
  __device__ T operator()(int64_t i) const {
    const double v = add_rn(start, mul_rn(step, double(i)));  // as the CPU: no fused multiply-add
    if constexpr (is_float_v<T>) return T(v);
    else return static_cast<T>(v);
  }
};
// start + step * i in int64 (integer T, integer start and step).
template <typename T>
struct ArangeInt {
  int64_t start, step;
  __device__ T operator()(int64_t i) const { return static_cast<T>(start + step * i); }
};
// The first half counts up from start and the second half down from end, so both ends are exact.
template <typename T>
struct Linspace {
  double start, end, step;
  int64_t n, half;
  __device__ T operator()(int64_t i) const {
    // Rounded step by step as on the CPU (no fused multiply-add).
    double v = i < half ? add_rn(start, mul_rn(step, double(i))) : add_rn(end, -mul_rn(step, double(n - 1 - i)));
    if constexpr (is_float_v<T>) return T(v);
    else return static_cast<T>(v);
  }
};

// p[i * stride] = f(i) for the n elements of a 1-d tensor.
template <typename T, typename F>
__global__ void fill_indexed_kernel(T* p, int64_t n, int64_t stride, F f) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) p[i * stride] = f(i);
}

template <typename T, typename F>
void fill_indexed(const Tensor& out, const F& f) {
  const int64_t n = out.numel();
  if (n == 0) return;
  LaunchContext ctx(out);
  fill_indexed_kernel<T, F><<<blocks_for(n), kBlockThreads, 0, ctx.stream>>>(
      static_cast<T*>(out.data_ptr()), n, out.dim() ? out.stride(0) : 1, f);
  EMBER_CUDA_CHECK_LAUNCH();
}

void arange_kernel(OpCall& c) {
  const Tensor& out = c.outputs[0];
  const ArangeArgs a = ArangeArgs::from(c);
  EMBER_DISPATCH_NUMERIC(out.dtype(), "arange", [&] {
    if constexpr (is_float_v<scalar_t>) {
      fill_indexed<scalar_t>(out, ArangeDouble<scalar_t>{a.start.to_double(), a.step.to_double()});
    } else {
      // start and step truncated to integers first, as torch does (see lib/cpu/fill.cpp).
      fill_indexed<scalar_t>(out, ArangeInt<scalar_t>{a.start.to_int(), a.step.to_int()});
    }
  });
}

void linspace_kernel(OpCall& c) {
  const Tensor& out = c.outputs[0];
  const LinspaceArgs a = LinspaceArgs::from(c);
  const double s = a.start.to_double(), e = a.end.to_double();
  const int64_t n = out.numel();
  const double step = n > 1 ? (e - s) / double(n - 1) : 0.0;
  EMBER_DISPATCH_NUMERIC(out.dtype(), "linspace", [&] {
    fill_indexed<scalar_t>(out, Linspace<scalar_t>{s, e, step, n, n / 2});
  });
}

// One thread per element of the [rows, cols] output (any strides).
template <typename T>
__global__ void eye_kernel_impl(T* p, int64_t rows, int64_t cols, int64_t s0, int64_t s1) {
  const int64_t n = rows * cols, step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    const int64_t i = k / cols, j = k % cols;
    p[i * s0 + j * s1] = convert<T>(i == j ? 1 : 0);
  }
}

void eye_kernel(OpCall& c) {
  const Tensor& out = c.outputs[0];
  const int64_t rows = out.size(0), cols = out.size(1);
  if (rows == 0 || cols == 0) return;
  EMBER_DISPATCH_ALL(out.dtype(), "eye", [&] {
    LaunchContext ctx(out);
    eye_kernel_impl<scalar_t><<<blocks_for(rows * cols), kBlockThreads, 0, ctx.stream>>>(
        static_cast<scalar_t*>(out.data_ptr()), rows, cols, out.stride(0), out.stride(1));
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

EMBER_REGISTER_KERNEL(arange, CUDA, arange_kernel);
EMBER_REGISTER_KERNEL(linspace, CUDA, linspace_kernel);
EMBER_REGISTER_KERNEL(eye, CUDA, eye_kernel);

}  // namespace
}  // namespace ember::cuda
