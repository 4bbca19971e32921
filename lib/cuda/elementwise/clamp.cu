// Kernels that bound values on CUDA: clamp (number or tensor bounds) and
// nan_to_num (cpu/clamp.cpp; formulas: kernels/elementwise_math.h).
#include <optional>

#include "kernels/elementwise_math.h"
#include "cuda/elementwise/helpers.cuh"
#include "dispatch/args/elementwise.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cuda {
namespace {

template <typename O>
struct ClampNumbers {
  O lo, hi;
  __device__ O operator()(O x) const { return clamp_value(x, lo, hi); }
};
struct ClampTensors {
  template <typename O> __device__ O operator()(O x, O lo, O hi) const { return clamp_value(x, lo, hi); }
};

void clamp_kernel(OpCall& c) {
  const Tensor& lo = c.in(1);
  const Tensor& hi = c.in(2);
  ClampSetup s = setup_clamp(c);
  const ElementwiseOutput& o = s.output;
  const Tensor& in = s.in;
  DType dt = s.dtype;
  dispatch<DTypes::Numeric>(dt, "clamp", [&](auto tag) {
    using T = decltype(tag);
    using O = opmath_t<T>;
    if (s.number_bounds) {
      O l = lo.defined() ? number_bound<T, O>(lo) : open_bound<O>(false);
      O h = hi.defined() ? number_bound<T, O>(hi) : open_bound<O>(true);
      gpu_kernel<T, T>(o.out, {&in}, ClampNumbers<O>{l, h});
    } else {
      Tensor l = clamp_bound(lo, dt, o.out, false), h = clamp_bound(hi, dt, o.out, true);
      gpu_kernel<T, T, T, T>(o.out, {&in, &l, &h}, ClampTensors{});
    }
  });
  o.finish();
}

template <typename O>
struct NanToNum {
  O nan, posinf, neginf;
  __device__ O operator()(O x) const { return nan_to_num_value(x, nan, posinf, neginf); }
};

void nan_to_num_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  if (!is_floating(self.dtype())) return copy_unary(c);  // nothing to replace
  const NanToNumArgs a = NanToNumArgs::from(c);
  ElementwiseOutput o = prepare_output(c, self.sizes(), self.dtype());
  Tensor in = prepare_operand(self, self.dtype(), o.out);
  dispatch<DTypes::Floating>(self.dtype(), "nan_to_num", [&](auto tag) {
    using T = decltype(tag);
    using O = opmath_t<T>;
    O big = max_finite<T>();
    O n = static_cast<O>(a.nan.value_or(0.0));
    O p = a.posinf ? static_cast<O>(*a.posinf) : big;
    O m = a.neginf ? static_cast<O>(*a.neginf) : -big;
    gpu_kernel<T, T>(o.out, {&in}, NanToNum<O>{n, p, m});
  });
  o.finish();
}

EMBER_REGISTER_KERNEL(clamp, CUDA, clamp_kernel);
EMBER_REGISTER_KERNEL(nan_to_num, CUDA, nan_to_num_kernel);

}  // namespace
}  // namespace ember::cuda
