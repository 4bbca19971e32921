// Kernels that bound values: clamp (number or tensor bounds) and nan_to_num.
#include <cmath>
#include <limits>

#include "kernels/elementwise_math.h"
#include "cpu/unary_helpers.h"
#include "ember/ops/views.h"
#include "dispatch/args/elementwise.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cpu {
namespace {

void clamp_kernel(OpCall& c) {
  const Tensor& lo = c.in(1);
  const Tensor& hi = c.in(2);
  ClampSetup s = setup_clamp(c);
  const ElementwiseOutput& o = s.output;
  const Tensor& in = s.in;
  DType dt = s.dtype;
  EMBER_DISPATCH_NUMERIC(dt, "clamp", [&] {
    using T = scalar_t;
    using O = opmath_t<T>;
    if (s.number_bounds) {
      O l = lo.defined() ? number_bound<T, O>(lo) : open_bound<O>(false);
      O h = hi.defined() ? number_bound<T, O>(hi) : open_bound<O>(true);
      unary_loop(o.out, in, [l, h](T x) -> T { return convert<T>(clamp_value(O(x), l, h)); });
    } else {
      Tensor l = clamp_bound(lo, dt, o.out, false), h = clamp_bound(hi, dt, o.out, true);
      cpu_kernel(o.out, {&in, &l, &h}, [](T x, T a, T b) -> T {
        return convert<T>(clamp_value(O(x), O(a), O(b)));
      });
    }
  });
  o.finish();
}

void nan_to_num_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  if (!is_floating(self.dtype()))  // nothing to replace: a copy
    return same_dtype_unary<true>(c, [](auto x) { return x; });
  const NanToNumArgs a = NanToNumArgs::from(c);
  ElementwiseOutput o = prepare_output(c, self.sizes(), self.dtype());
  Tensor in = prepare_operand(self, self.dtype(), o.out);
  EMBER_DISPATCH_FLOATING(self.dtype(), "nan_to_num", [&] {
    using T = scalar_t;
    using O = opmath_t<T>;
    O big = max_finite<T>();
    O n = static_cast<O>(a.nan.value_or(0.0));
    O p = a.posinf ? static_cast<O>(*a.posinf) : big;
    O m = a.neginf ? static_cast<O>(*a.neginf) : -big;
    unary_loop(o.out, in, [n, p, m](T v) -> T { return convert<T>(nan_to_num_value(O(v), n, p, m)); });
  });
  o.finish();
}

EMBER_REGISTER_KERNEL(clamp, CPU, clamp_kernel);
EMBER_REGISTER_KERNEL(nan_to_num, CPU, nan_to_num_kernel);

}  // namespace
}  // namespace ember::cpu
