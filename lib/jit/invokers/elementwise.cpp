// Invokers of the elementwise group (lib/dispatch/ops/elementwise.def): each
// node runs through the public op function (include/ember/ops/elementwise.h),
// so its dtype and shape checks guard nodes read from a model file.
//
// What the op functions put in the OpCall (lib/ops/elementwise_*.cpp):
// - inputs are tensors only: a Python number operand (x + 2, x.clamp(min=0),
//   where(c, x, 0.)) arrives as a wrapped 0-dim tensor input, so the
//   Tensor-Tensor overloads reproduce the call (the graph's value records the
//   is_wrapped_number mark, which type promotion reads, and the tensor made
//   for it when the graph runs carries it again);
// - in-place forms (x.add_(y), F.relu(x, inplace=True)) preset outputs[0] to
//   self: the node writes into its first input and runs op_ on it. There is no
//   public out= form of these ops, so any other preset is refused.
// threshold_backward (relu's backward) has no invoker: it cannot be traced.
#include "ember/ops/activation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/elementwise_special.h"
#include "jit/invokers/invoke_util.h"

namespace ember::jit {

namespace {

// For the ops that have no in-place form (isnan, softplus, where).
void check_out_of_place(const InvokeArgs& a) {
  if (!a.node().preset.empty())
    a.fail("this op has no in-place form, but the node writes into an existing tensor");
}

}  // namespace

// op(x, args...) or, for a node that writes into a tensor, x.op_(args...)
// (inplace_self fails unless that tensor is x); the extra arguments are
// expressions over `a` (the node's InvokeArgs).
#define EMBER_INVOKER_WITH_INPLACE(op, ...)                                              \
  EMBER_REGISTER_INVOKER(op, [](const InvokeArgs& a) -> std::vector<Tensor> {            \
    if (a.node().preset.empty()) return {ember::op(a.tensor(0) __VA_OPT__(, ) __VA_ARGS__)}; \
    Tensor self = inplace_self(a);                                                       \
    return {ember::op##_(self __VA_OPT__(, ) __VA_ARGS__)};                              \
  })

// op(x, args...) for the ops without an in-place form.
#define EMBER_INVOKER_OUT_OF_PLACE(op, ...)                                    \
  EMBER_REGISTER_INVOKER(op, [](const InvokeArgs& a) -> std::vector<Tensor> {  \
    check_out_of_place(a);                                                     \
    return {ember::op(a.tensor(0) __VA_OPT__(, ) __VA_ARGS__)};                \
  })

// ---- unary: in: self ------------------------------------------------------------------------
EMBER_INVOKER_WITH_INPLACE(neg);
EMBER_INVOKER_WITH_INPLACE(abs);
EMBER_INVOKER_WITH_INPLACE(sign);
EMBER_INVOKER_WITH_INPLACE(exp);
EMBER_INVOKER_WITH_INPLACE(expm1);
EMBER_INVOKER_WITH_INPLACE(log);
EMBER_INVOKER_WITH_INPLACE(log1p);
EMBER_INVOKER_WITH_INPLACE(log2);
EMBER_INVOKER_WITH_INPLACE(sqrt);
EMBER_INVOKER_WITH_INPLACE(rsqrt);
EMBER_INVOKER_WITH_INPLACE(reciprocal);
EMBER_INVOKER_WITH_INPLACE(sin);
EMBER_INVOKER_WITH_INPLACE(cos);
EMBER_INVOKER_WITH_INPLACE(tan);
EMBER_INVOKER_WITH_INPLACE(tanh);
EMBER_INVOKER_WITH_INPLACE(sigmoid);
EMBER_INVOKER_WITH_INPLACE(erf);
EMBER_INVOKER_WITH_INPLACE(floor);
EMBER_INVOKER_WITH_INPLACE(ceil);
EMBER_INVOKER_WITH_INPLACE(trunc);
EMBER_INVOKER_WITH_INPLACE(round, a.integer(0));  // decimals
EMBER_INVOKER_WITH_INPLACE(relu);
EMBER_INVOKER_WITH_INPLACE(gelu, a.string(0));    // approximate: "none" or "tanh"
EMBER_INVOKER_WITH_INPLACE(silu);
EMBER_INVOKER_OUT_OF_PLACE(softplus, a.scalar(0), a.scalar(1));  // beta, threshold
EMBER_INVOKER_WITH_INPLACE(leaky_relu, a.scalar(0));             // negative_slope
// nan, posinf, neginf: a double each, or None (the dtype's default).
EMBER_INVOKER_WITH_INPLACE(nan_to_num, a.opt_real(0), a.opt_real(1), a.opt_real(2));
EMBER_INVOKER_OUT_OF_PLACE(isnan);
EMBER_INVOKER_OUT_OF_PLACE(isinf);
EMBER_INVOKER_OUT_OF_PLACE(isfinite);
EMBER_INVOKER_WITH_INPLACE(logical_not);
EMBER_INVOKER_WITH_INPLACE(bitwise_not);

// clamp: in: self, min, max; a bound left out is an undefined tensor (the
// Tensor overload's "open side"), a number bound a wrapped 0-dim tensor.
EMBER_INVOKER_WITH_INPLACE(clamp, a.opt_tensor(1), a.opt_tensor(2));

// ---- binary: in: self, other ------------------------------------------------------------------
EMBER_INVOKER_WITH_INPLACE(add, a.tensor(1), a.scalar(0));  // alpha
EMBER_INVOKER_WITH_INPLACE(sub, a.tensor(1), a.scalar(0));  // alpha
EMBER_INVOKER_WITH_INPLACE(mul, a.tensor(1));
// rounding_mode: None (true division), "trunc" or "floor".
EMBER_INVOKER_WITH_INPLACE(div, a.tensor(1),
                           a.is_none(0) ? std::nullopt : std::optional<std::string>(a.string(0)));
EMBER_INVOKER_WITH_INPLACE(remainder, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(fmod, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(pow, a.tensor(1));  // 2 ** x: self is the wrapped number
EMBER_INVOKER_WITH_INPLACE(maximum, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(minimum, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(atan2, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(eq, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(ne, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(lt, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(le, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(gt, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(ge, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(logical_and, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(logical_or, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(logical_xor, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(bitwise_and, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(bitwise_or, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(bitwise_xor, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(bitwise_left_shift, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(bitwise_right_shift, a.tensor(1));

// ---- ternary ------------------------------------------------------------------------------------
// lerp in: self, end, weight (a number weight is a wrapped 0-dim tensor).
EMBER_INVOKER_WITH_INPLACE(lerp, a.tensor(1), a.tensor(2));
// where in: condition, self, other; no in-place form.
EMBER_INVOKER_OUT_OF_PLACE(where, a.tensor(1), a.tensor(2));

// ---- more activations (ops/activation.h); selu and celu are elu nodes --------------------------
EMBER_INVOKER_WITH_INPLACE(elu, a.scalar(0), a.scalar(1), a.scalar(2));  // alpha, scale, input_scale
EMBER_INVOKER_WITH_INPLACE(hardtanh, a.scalar(0), a.scalar(1));          // min_val, max_val
EMBER_INVOKER_WITH_INPLACE(hardsigmoid);
EMBER_INVOKER_WITH_INPLACE(hardswish);
EMBER_INVOKER_WITH_INPLACE(mish);
EMBER_INVOKER_OUT_OF_PLACE(logsigmoid);
EMBER_INVOKER_OUT_OF_PLACE(softshrink, a.scalar(0));  // lambd
EMBER_INVOKER_OUT_OF_PLACE(hardshrink, a.scalar(0));  // lambd
EMBER_INVOKER_WITH_INPLACE(threshold, a.scalar(0), a.scalar(1));  // threshold, value
// ---- special functions (ops/elementwise_special.h) -----------------------------------------------
EMBER_INVOKER_WITH_INPLACE(acos);
EMBER_INVOKER_WITH_INPLACE(asin);
EMBER_INVOKER_WITH_INPLACE(atan);
EMBER_INVOKER_WITH_INPLACE(sinh);
EMBER_INVOKER_WITH_INPLACE(cosh);
EMBER_INVOKER_WITH_INPLACE(asinh);
EMBER_INVOKER_WITH_INPLACE(acosh);
EMBER_INVOKER_WITH_INPLACE(atanh);
EMBER_INVOKER_WITH_INPLACE(erfc);
EMBER_INVOKER_WITH_INPLACE(erfinv);
EMBER_INVOKER_WITH_INPLACE(lgamma);
EMBER_INVOKER_WITH_INPLACE(digamma);
EMBER_INVOKER_WITH_INPLACE(log10);
EMBER_INVOKER_WITH_INPLACE(exp2);
EMBER_INVOKER_WITH_INPLACE(sinc);
EMBER_INVOKER_WITH_INPLACE(i0);
EMBER_INVOKER_OUT_OF_PLACE(special_i1);
EMBER_INVOKER_WITH_INPLACE(frac);
EMBER_INVOKER_OUT_OF_PLACE(signbit);
// polygamma(n, x): n is the node's attr 0; in place: x.polygamma_(n).
EMBER_REGISTER_INVOKER(polygamma, [](const InvokeArgs& a) -> std::vector<Tensor> {
  if (a.node().preset.empty()) return {ember::polygamma(a.integer(0), a.tensor(0))};
  Tensor self = inplace_self(a);
  return {ember::polygamma_(self, a.integer(0))};
});
EMBER_INVOKER_WITH_INPLACE(hypot, a.tensor(1));
EMBER_INVOKER_OUT_OF_PLACE(logaddexp, a.tensor(1));
EMBER_INVOKER_OUT_OF_PLACE(logaddexp2, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(copysign, a.tensor(1));
EMBER_INVOKER_OUT_OF_PLACE(fmax, a.tensor(1));
EMBER_INVOKER_OUT_OF_PLACE(fmin, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(xlogy, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(heaviside, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(gcd, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(lcm, a.tensor(1));
EMBER_INVOKER_WITH_INPLACE(nextafter, a.tensor(1));

#undef EMBER_INVOKER_WITH_INPLACE
#undef EMBER_INVOKER_OUT_OF_PLACE

}  // namespace ember::jit
