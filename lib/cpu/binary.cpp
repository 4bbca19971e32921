// Binary arithmetic kernels: add, sub, mul, div (three rounding modes),
// remainder, fmod, maximum, minimum, atan2 (Note [Elementwise kernels]).
#include <atomic>
#include <cmath>

#include "kernels/elementwise_math.h"
#include "cpu/elementwise.h"
#include "dispatch/args/elementwise.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cpu {
namespace {

// Runs f over the operands of s with compute type T and output type Out.
template <typename T, typename Out = T, typename F>
void run(const BinarySetup& s, const F& f) {
  binary_op<T, Out>(s.out(), s.operands, f);
}

// add and sub: self +- alpha * other. Integers wrap around on overflow.
void add_sub(OpCall& c, const Scalar& alpha, bool subtract) {
  DType dt = result_type(c.in(0), c.in(1));
  BinarySetup s = setup_binary(c, dt, dt);
  bool unit = alpha.to_double() == 1.0;
  EMBER_DISPATCH_ALL(dt, c.name(), [&] {
    using O = opmath_t<scalar_t>;
    O al = alpha.to<O>();
    if (subtract && unit) run<scalar_t>(s, [](O x, O y) { return wrap_sub(x, y); });
    else if (subtract) run<scalar_t>(s, [al](O x, O y) { return wrap_sub(x, wrap_mul(al, y)); });
    else if (unit) run<scalar_t>(s, [](O x, O y) { return wrap_add(x, y); });
    else run<scalar_t>(s, [al](O x, O y) { return wrap_add(x, wrap_mul(al, y)); });
  });
  s.output.finish();
}
void add_kernel(OpCall& c) { add_sub(c, AddArgs::from(c).alpha, false); }
void sub_kernel(OpCall& c) { add_sub(c, SubArgs::from(c).alpha, true); }

void mul_kernel(OpCall& c) {
  DType dt = result_type(c.in(0), c.in(1));
  BinarySetup s = setup_binary(c, dt, dt);
  EMBER_DISPATCH_ALL(dt, "mul", [&] {
    using O = opmath_t<scalar_t>;
    run<scalar_t>(s, [](O x, O y) { return wrap_mul(x, y); });
  });
  s.output.finish();
}

// Integer division by zero cannot throw inside the loop (it may run in an OpenMP
// region): the loop raises a flag and the kernel throws after it.
struct ZeroDivision {
  std::atomic<bool> hit{false};
  void raise() { hit.store(true, std::memory_order_relaxed); }
  void check(const char* op) const {
    EMBER_CHECK(!hit.load(), "ZeroDivisionError: ", op, ": integer division by zero");
  }
};

// div with rounding_mode "trunc" or "floor", for one dtype.
template <typename T>
void div_rounding(const BinarySetup& s, bool floor, ZeroDivision& zero) {
  using O = opmath_t<T>;
  if constexpr (std::is_floating_point_v<O>) {
    if (floor) run<T>(s, [](O x, O y) { return div_floor_float(x, y); });
    else run<T>(s, [](O x, O y) { return std::trunc(x / y); });
  } else {
    auto* z = &zero;
    if (floor) run<T>(s, [z](O x, O y) { return y == 0 ? (z->raise(), O(0)) : div_floor_int(x, y); });
    else run<T>(s, [z](O x, O y) { return y == 0 ? (z->raise(), O(0)) : div_trunc_int(x, y); });
  }
}

void div_kernel(OpCall& c) {
  const DivArgs a = DivArgs::from(c);
  DType common = result_type(c.in(0), c.in(1));
  if (!a.rounding_mode) {  // true division: integers divide as floats
    DType dt = is_floating(common) ? common : default_dtype();
    BinarySetup s = setup_binary(c, dt, dt);
    EMBER_DISPATCH_FLOATING(dt, "div", [&] {
      using O = opmath_t<scalar_t>;
      run<scalar_t>(s, [](O x, O y) { return x / y; });
    });
    return s.output.finish();
  }
  bool floor = *a.rounding_mode == "floor";
  BinarySetup s = setup_binary(c, common, common);
  ZeroDivision zero;
  EMBER_DISPATCH_NUMERIC(common, "div", [&] { div_rounding<scalar_t>(s, floor, zero); });
  zero.check("div");
  s.output.finish();
}

// remainder has the sign of the divisor (Python's %), fmod that of the dividend.
template <bool kPythonSign, typename T>
void modulo(const BinarySetup& s, ZeroDivision& zero) {
  using O = opmath_t<T>;
  if constexpr (std::is_floating_point_v<O>) {
    run<T>(s, [](O x, O y) { return kPythonSign ? rem_floor_float(x, y) : std::fmod(x, y); });
  } else {
    auto* z = &zero;
    run<T>(s, [z](O x, O y) {
      if (y == 0) return z->raise(), O(0);
      return kPythonSign ? rem_floor_int(x, y) : rem_int(x, y);
    });
  }
}

template <bool kPythonSign>
void modulo_kernel(OpCall& c) {
  DType dt = result_type(c.in(0), c.in(1));
  BinarySetup s = setup_binary(c, dt, dt, /*round_number=*/true);
  ZeroDivision zero;
  EMBER_DISPATCH_NUMERIC(dt, c.name(), [&] { modulo<kPythonSign, scalar_t>(s, zero); });
  zero.check(c.name());
  s.output.finish();
}

// grad where self > threshold else 0: one pass (where(self > t, grad, 0) takes three).
void threshold_backward_kernel(OpCall& c) {
  DType dt = c.in(0).dtype();
  BinarySetup s = setup_binary(c, dt, dt);
  const ThresholdBackwardArgs a = ThresholdBackwardArgs::from(c);
  EMBER_DISPATCH_FLOATING(dt, c.name(), [&] {
    using O = opmath_t<scalar_t>;
    O threshold = a.threshold.to<O>();
    run<scalar_t>(s, [threshold](O g, O x) { return x > threshold ? g : O(0); });
  });
  s.output.finish();
}

// maximum / minimum: a nan in either input gives nan.
template <bool kMax>
void extremum_kernel(OpCall& c) {
  DType dt = result_type(c.in(0), c.in(1));
  BinarySetup s = setup_binary(c, dt, dt);
  EMBER_DISPATCH_ALL(dt, c.name(), [&] {
    using O = opmath_t<scalar_t>;
    run<scalar_t>(s, [](O x, O y) { return extremum_value<kMax>(x, y); });
  });
  s.output.finish();
}

void atan2_kernel(OpCall& c) {
  DType common = result_type(c.in(0), c.in(1));
  DType dt = is_floating(common) ? common : default_dtype();
  BinarySetup s = setup_binary(c, dt, dt);
  EMBER_DISPATCH_FLOATING(dt, "atan2", [&] {
    using O = opmath_t<scalar_t>;
    run<scalar_t>(s, [](O y, O x) { return std::atan2(y, x); });
  });
  s.output.finish();
}

EMBER_REGISTER_KERNEL(add, CPU, add_kernel);
EMBER_REGISTER_KERNEL(sub, CPU, sub_kernel);
EMBER_REGISTER_KERNEL(mul, CPU, mul_kernel);
EMBER_REGISTER_KERNEL(div, CPU, div_kernel);
EMBER_REGISTER_KERNEL(remainder, CPU, modulo_kernel<true>);
EMBER_REGISTER_KERNEL(fmod, CPU, modulo_kernel<false>);
EMBER_REGISTER_KERNEL(maximum, CPU, extremum_kernel<true>);
EMBER_REGISTER_KERNEL(minimum, CPU, extremum_kernel<false>);
EMBER_REGISTER_KERNEL(atan2, CPU, atan2_kernel);
EMBER_REGISTER_KERNEL(threshold_backward, CPU, threshold_backward_kernel);

}  // namespace
}  // namespace ember::cpu
