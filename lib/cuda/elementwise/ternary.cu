// Three-input kernels on CUDA: where(condition, self, other) and lerp(self, end,
// weight) (cpu/ternary.cpp; lerp's formula: kernels/lerp.h, shared with the CPU).
#include "kernels/lerp.h"
#include "cuda/elementwise/helpers.cuh"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cuda {
namespace {

struct Where {
  template <typename T> __device__ T operator()(bool k, T a, T b) const { return k ? a : b; }
};

void where_kernel(OpCall& c) {
  WhereSetup s = setup_where(c);
  dispatch<DTypes::All>(s.dtype, "where", [&](auto tag) {
    using T = decltype(tag);
    gpu_kernel<T, bool, T, T>(s.output.out, {&s.cond, &s.self, &s.other}, Where{});
  });
  s.output.finish();
}

template <typename O>
struct LerpNumberWeight {
  O w;
  __device__ O operator()(O start, O end) const { return lerp_value(start, end, w); }
};
struct Lerp {
  template <typename O> __device__ O operator()(O start, O end, O w) const { return lerp_value(start, end, w); }
};

void lerp_kernel(OpCall& c) {
  const Tensor& weight = c.in(2);
  DType dt = c.in(0).dtype();
  ElementwiseOutput o = prepare_output(c, broadcast3(c.in(0), c.in(1), weight, "lerp"), dt);
  dispatch<DTypes::Floating>(dt, "lerp", [&](auto tag) {
    using T = decltype(tag);
    using O = opmath_t<T>;
    if (is_scalar_operand(weight)) {
      BinaryOperands ops = prepare_binary(c.in(0), c.in(1), dt, o.out);
      gpu_kernel<T, T, T>(o.out, {&ops.a, &ops.b}, LerpNumberWeight<O>{scalar_value<O>(weight)});
    } else {
      Tensor s = prepare_operand(c.in(0), dt, o.out), e = prepare_operand(c.in(1), dt, o.out);
      Tensor w = prepare_operand(weight, dt, o.out);
      gpu_kernel<T, T, T, T>(o.out, {&s, &e, &w}, Lerp{});
    }
  });
  o.finish();
}

EMBER_REGISTER_KERNEL(where, CUDA, where_kernel);
EMBER_REGISTER_KERNEL(lerp, CUDA, lerp_kernel);

}  // namespace
}  // namespace ember::cuda
