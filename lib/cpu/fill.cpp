// Kernels that write a pattern into an existing tensor: fill_, arange, linspace, eye.
#include <cmath>

#include "kernels/dtype_dispatch.h"
#include "cpu/loops.h"
#include "dispatch/args/core.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/core.h"

namespace ember::cpu {
namespace {

void fill_kernel(OpCall& c) {
  const Tensor& self = c.outputs[0];
  const FillArgs a = FillArgs::from(c);
  EMBER_DISPATCH_ALL(self.dtype(), "fill_", [&] {
    scalar_t value = a.value.to<scalar_t>();
    cpu_kernel(self, {}, [value]() -> scalar_t { return value; });
  });
}

// Writes f(i) into the i-th element of a 1-d tensor.
template <typename T, typename F>
void fill_indexed(const Tensor& out, const F& f) {
  T* p = static_cast<T*>(out.data_ptr());
  int64_t stride = out.dim() ? out.stride(0) : 1;
  parallel_for(0, out.numel(), kGrainSize, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) p[i * stride] = f(i);
  });
}

void arange_kernel(OpCall& c) {
  const Tensor& out = c.outputs[0];
  const ArangeArgs a = ArangeArgs::from(c);
  EMBER_DISPATCH_NUMERIC(out.dtype(), "arange", [&] {
    if constexpr (is_float_v<scalar_t>) {
      double s = a.start.to_double(), st = a.step.to_double();
      fill_indexed<scalar_t>(out, [=](int64_t i) { return scalar_t(s + st * double(i)); });
    } else {
      // torch's rule for an integer dtype: start and step truncated to integers first
      // (arange(0, 2, 0.5, dtype=int64) is four zeros), the length from the real values.
      int64_t s = a.start.to_int(), st = a.step.to_int();
      fill_indexed<scalar_t>(out, [=](int64_t i) { return static_cast<scalar_t>(s + st * i); });
    }
  });
}

// Like PyTorch, the first half counts up from start and the second half down
// from end, so both ends are exact.
void linspace_kernel(OpCall& c) {
  const Tensor& out = c.outputs[0];
  const LinspaceArgs a = LinspaceArgs::from(c);
  double s = a.start.to_double(), e = a.end.to_double();
  int64_t n = out.numel();
  double step = n > 1 ? (e - s) / double(n - 1) : 0.0;
  int64_t half = n / 2;
  EMBER_DISPATCH_NUMERIC(out.dtype(), "linspace", [&] {
    fill_indexed<scalar_t>(out, [=](int64_t i) {
      double v = i < half ? s + step * double(i) : e - step * double(n - 1 - i);
      if constexpr (is_float_v<scalar_t>) return scalar_t(v);
      else return static_cast<scalar_t>(v);
    });
  });
}

void eye_kernel(OpCall& c) {
  const Tensor& out = c.outputs[0];
  int64_t cols = out.size(1);
  EMBER_DISPATCH_ALL(out.dtype(), "eye", [&] {
    scalar_t* p = static_cast<scalar_t*>(out.data_ptr());
    int64_t s0 = out.stride(0), s1 = out.stride(1);
    for (int64_t i = 0; i < out.size(0); ++i)
      for (int64_t j = 0; j < cols; ++j) p[i * s0 + j * s1] = convert<scalar_t>(i == j ? 1 : 0);
  });
}

EMBER_REGISTER_KERNEL(fill_, CPU, fill_kernel);
EMBER_REGISTER_KERNEL(arange, CPU, arange_kernel);
EMBER_REGISTER_KERNEL(linspace, CPU, linspace_kernel);
EMBER_REGISTER_KERNEL(eye, CPU, eye_kernel);

}  // namespace
}  // namespace ember::cpu
