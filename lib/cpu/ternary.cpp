// Three-input kernels: where(condition, self, other) and lerp(self, end, weight).
#include <cmath>

#include "cpu/elementwise.h"
#include "kernels/lerp.h"
#include "ember/ops/views.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cpu {
namespace {

void where_kernel(OpCall& c) {
  WhereSetup s = setup_where(c);
  EMBER_DISPATCH_ALL(s.dtype, "where", [&] {
    using T = scalar_t;
    cpu_kernel(s.output.out, {&s.cond, &s.self, &s.other}, [](bool k, T a, T b) -> T { return k ? a : b; });
  });
  s.output.finish();
}

void lerp_kernel(OpCall& c) {
  const Tensor& weight = c.in(2);
  DType dt = c.in(0).dtype();
  ElementwiseOutput o = prepare_output(c, broadcast3(c.in(0), c.in(1), weight, "lerp"), dt);
  EMBER_DISPATCH_FLOATING(dt, "lerp", [&] {
    using T = scalar_t;
    using O = opmath_t<T>;
    if (is_scalar_operand(weight)) {
      O w = scalar_value<O>(weight);
      BinaryOperands ops = prepare_binary(c.in(0), c.in(1), dt, o.out);
      binary_op<T, T>(o.out, ops, [w](O s, O e) { return lerp_value(s, e, w); });
    } else {
      Tensor s = prepare_operand(c.in(0), dt, o.out), e = prepare_operand(c.in(1), dt, o.out);
      Tensor w = prepare_operand(weight, dt, o.out);
      cpu_kernel(o.out, {&s, &e, &w}, [](T a, T b, T x) -> T {
        return convert<T>(lerp_value(O(a), O(b), O(x)));
      });
    }
  });
  o.finish();
}

EMBER_REGISTER_KERNEL(where, CPU, where_kernel);
EMBER_REGISTER_KERNEL(lerp, CPU, lerp_kernel);

}  // namespace
}  // namespace ember::cpu
