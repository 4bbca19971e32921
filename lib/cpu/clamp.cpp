// Kernels that bound values: clamp (number or tensor bounds) and nan_to_num.
#include <cmath>
#include <limits>

#include "cpu/unary_helpers.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"

namespace ember::cpu {
namespace {

// min(max(x, lo), hi) as PyTorch: nan stays nan; with lo > hi the result is hi.
template <typename T>
T clamp_value(T x, T lo, T hi) {
  if constexpr (std::is_floating_point_v<T>) {
    if (x != x) return x;
  }
  T y = x < lo ? lo : x;
  return hi < y ? hi : y;
}

// The bound standing in for a missing one: -inf / +inf, or an integer type's extremes.
template <typename T>
T open_bound(bool upper) {
  if constexpr (std::is_floating_point_v<T>)
    return upper ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
  else
    return upper ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
}

// A bound as a tensor in dtype: the given one (cast), or the open bound as a 0-dim tensor.
template <typename T>
Tensor bound_tensor(const Tensor& bound, DType dtype, const Tensor& out, bool upper) {
  if (bound.defined()) return prepare_operand(bound, dtype, out);
  using O = opmath_t<T>;
  return full({}, Scalar(open_bound<O>(upper)), TensorOptions(dtype));
}

void clamp_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const Tensor& lo = c.in(1);
  const Tensor& hi = c.in(2);
  DType dt = result_type({&self, &lo, &hi});
  DimVector shape = self.sizes();
  if (lo.defined()) shape = broadcast_shapes(shape, lo.sizes(), "clamp");
  if (hi.defined()) shape = broadcast_shapes(shape, hi.sizes(), "clamp");
  ElementwiseOutput o = prepare_output(c, shape, dt);
  Tensor in = prepare_operand(self, dt, o.out);
  bool number_bounds = (!lo.defined() || is_scalar_operand(lo)) && (!hi.defined() || is_scalar_operand(hi));
  EMBER_DISPATCH_NUMERIC(dt, "clamp", [&] {
    using T = scalar_t;
    using O = opmath_t<T>;
    if (number_bounds) {
      O l = lo.defined() ? scalar_value<O>(lo) : open_bound<O>(false);
      O h = hi.defined() ? scalar_value<O>(hi) : open_bound<O>(true);
      unary_loop(o.out, in, [l, h](T x) -> T { return convert<T>(clamp_value(O(x), l, h)); });
    } else {
      Tensor l = bound_tensor<T>(lo, dt, o.out, false), h = bound_tensor<T>(hi, dt, o.out, true);
      cpu_kernel(o.out, {&in, &l, &h}, [](T x, T a, T b) -> T {
        return convert<T>(clamp_value(O(x), O(a), O(b)));
      });
    }
  });
  o.finish();
}

// The largest finite value of T, as a float for the reduced types.
template <typename T>
opmath_t<T> max_finite() {
  if constexpr (std::is_same_v<T, Half>) return 65504.0f;
  else if constexpr (std::is_same_v<T, BFloat16>) return 3.38953139e38f;
  else return std::numeric_limits<T>::max();
}

void nan_to_num_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  if (!is_floating(self.dtype()))  // nothing to replace: a copy
    return same_dtype_unary<true>(c, [](auto x) { return x; });
  std::optional<double> nan, posinf, neginf;
  if (!c.attr(0).is_none()) nan = c.attr(0).to_double();
  if (!c.attr(1).is_none()) posinf = c.attr(1).to_double();
  if (!c.attr(2).is_none()) neginf = c.attr(2).to_double();
  ElementwiseOutput o = prepare_output(c, self.sizes(), self.dtype());
  Tensor in = prepare_operand(self, self.dtype(), o.out);
  EMBER_DISPATCH_FLOATING(self.dtype(), "nan_to_num", [&] {
    using T = scalar_t;
    using O = opmath_t<T>;
    O big = max_finite<T>();
    O n = static_cast<O>(nan.value_or(0.0));
    O p = posinf ? static_cast<O>(*posinf) : big;
    O m = neginf ? static_cast<O>(*neginf) : -big;
    unary_loop(o.out, in, [n, p, m](T v) -> T {
      O x = O(v);
      O inf = std::numeric_limits<O>::infinity();
      return convert<T>(x != x ? n : x == inf ? p : x == -inf ? m : x);
    });
  });
  o.finish();
}

EMBER_REGISTER_KERNEL(clamp, CPU, clamp_kernel);
EMBER_REGISTER_KERNEL(nan_to_num, CPU, nan_to_num_kernel);

}  // namespace
}  // namespace ember::cpu
