// Derivative rows of the reductions that need more than one expression per input
// (shared helpers, branches). The one-expression formulas (sum, mean, logsumexp,
// softmax, log_softmax, cumsum) live in their schema rows (lib/dispatch/schema/
// reduce.toml, grad.self), generated into build/generated/autograd/. prod and the
// scans: scan.cpp; max/min over a dim: selection.cpp.
#include <cmath>

#include "autograd/derivatives.h"
#include "autograd/derivatives/formulas.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/views.h"
#include "dispatch/args/reduce.h"
#include "dispatch/op_ids/reduce.h"

namespace ember::autograd {
namespace {

// The mean over dims (var_mean, std_mean; mean's own row is in the schema).
Tensor mean_backward(BackwardCtx& ctx, const Tensor& grad_mean, const DimVector& dims, bool keepdim) {
  Tensor g = expand_reduced(grad_mean, ctx.input_sizes(0), dims, keepdim);
  return g / Scalar(static_cast<double>(reduced_count(ctx.input_sizes(0), dims)));
}

// a + b where either may be undefined (an output of a multi-output op got no gradient).
Tensor add_defined(const Tensor& a, const Tensor& b) { return !a.defined() ? b : !b.defined() ? a : a + b; }


}  // namespace
}  // namespace ember::autograd

namespace ember::autograd {
namespace {

// var over dims with a correction: d var / dx = 2 (x - mean) / (N - correction).
// Args: those of var, std, var_mean or std_mean (dim, correction, keepdim).
template <typename Args>
Tensor var_backward(BackwardCtx& ctx, const Args& a, const Tensor& grad_var) {
  Tensor x = ctx.input(0);
  double n = static_cast<double>(reduced_count(ctx.input_sizes(0), a.dim));
  Tensor centered = x - mean(x, reduced_dims(a.dim), true);
  Tensor g = expand_reduced(grad_var, ctx.input_sizes(0), a.dim, a.keepdim);
  return g * centered * (2.0 / (n - a.correction));
}
// std = sqrt(var): the gradient of var is g / (2 std), taken as 0 where std is 0
// (constant slices), as PyTorch does.
template <typename Args>
Tensor std_backward(BackwardCtx& ctx, const Args& a, const Tensor& grad_std, const Tensor& std) {
  return var_backward(ctx, a, div_or_zero(grad_std, std * 2));
}

EMBER_DERIVATIVE(var, save_inputs({0}), { return {var_backward(ctx, VarArgs::from(ctx), ctx.grad(0))}; });
EMBER_DERIVATIVE_FULL(std, save_inputs({0}), save_inputs({0}), {
  return {std_backward(ctx, StdArgs::from(ctx), ctx.grad(0), ctx.output(0))};
});
// (var or std, mean): either output may be unused.
EMBER_DERIVATIVE(var_mean, save_inputs({0}), {
  const VarMeanArgs a = VarMeanArgs::from(ctx);
  return {add_defined(ctx.has_grad(0) ? var_backward(ctx, a, ctx.grad(0)) : Tensor(),
                      ctx.has_grad(1) ? mean_backward(ctx, ctx.grad(1), a.dim, a.keepdim) : Tensor())};
});
EMBER_DERIVATIVE_FULL(std_mean, save_inputs({0}), save_inputs({0}), {
  const StdMeanArgs a = StdMeanArgs::from(ctx);
  return {add_defined(ctx.has_grad(0) ? std_backward(ctx, a, ctx.grad(0), ctx.output(0)) : Tensor(),
                      ctx.has_grad(1) ? mean_backward(ctx, ctx.grad(1), a.dim, a.keepdim) : Tensor())};
});

// amax/amin (and either half of aminmax): the gradient is shared evenly among the
// elements equal to the result. Args: those of amax, amin or aminmax (dim, keepdim).
template <typename Args>
Tensor extremum_backward(BackwardCtx& ctx, const Args& a, const Tensor& grad, const Tensor& result) {
  Tensor x = ctx.input(0);
  Tensor hit = eq(x, expand_reduced(result, ctx.input_sizes(0), a.dim, a.keepdim));
  return expand_reduced(grad, ctx.input_sizes(0), a.dim, a.keepdim) * share_evenly(hit, a.dim, x.dtype());
}
EMBER_DERIVATIVE_FULL(amax, save_inputs({0}), save_inputs({0}), {
  return {extremum_backward(ctx, AmaxArgs::from(ctx), ctx.grad(0), ctx.output(0))};
});
EMBER_DERIVATIVE_FULL(amin, save_inputs({0}), save_inputs({0}), {
  return {extremum_backward(ctx, AminArgs::from(ctx), ctx.grad(0), ctx.output(0))};
});
// out: min, max; each half as amin / amax.
EMBER_DERIVATIVE_FULL(aminmax, save_inputs({0}), save_inputs({0, 1}), {
  const AminmaxArgs a = AminmaxArgs::from(ctx);
  return {add_defined(ctx.has_grad(0) ? extremum_backward(ctx, a, ctx.grad(0), ctx.output(0)) : Tensor(),
                      ctx.has_grad(1) ? extremum_backward(ctx, a, ctx.grad(1), ctx.output(1)) : Tensor())};
});

}  // namespace
}  // namespace ember::autograd

namespace ember::autograd {
namespace {

// The vector p-norm, with PyTorch's subgradients: 0 at a zero norm, sign(x) for
// p = 1 (0 at 0), the max (or min) |x| shared among ties for p = +-inf, and no
// gradient for p = 0 (a count). Attrs: p, dims, keepdim, dtype.
Tensor norm_backward(BackwardCtx& ctx) {
  const NormArgs a = NormArgs::from(ctx);
  if (a.p == 0) return Tensor();
  const DimVector& sizes = ctx.input_sizes(0);
  Tensor n = expand_reduced(ctx.output(0), sizes, a.dim, a.keepdim);
  Tensor g = expand_reduced(ctx.grad(0), sizes, a.dim, a.keepdim);
  Tensor x = ctx.input(0).to(n.dtype()), ax = abs(x);
  if (a.p == 1) return sign(x) * g;
  if (a.p == 2) return g * div_or_zero(x, n);
  if (std::isinf(a.p)) {
    return sign(x) * g * share_evenly(logical_or(eq(ax, n), isnan(ax)), a.dim, x.dtype());
  }
  if (a.p < 1) {  // |x|^(p-1) blows up at 0, where the subgradient is 0
    Tensor zero = eq(x, Scalar(0));
    Tensor scaled = where(zero, Scalar(0), sign(x) * pow(where(zero, Scalar(1), ax), Scalar(a.p - 1)));
    return scaled * g * pow(n, Scalar(1 - a.p));
  }
  Tensor scaled = a.p < 2 ? sign(x) * pow(ax, Scalar(a.p - 1)) : x * pow(ax, Scalar(a.p - 2));
  return scaled * div_or_zero(g, pow(n, Scalar(a.p - 1)));
}
EMBER_DERIVATIVE_FULL(norm, save_inputs({0}), save_inputs({0}), { return {norm_backward(ctx)}; });

}  // namespace
}  // namespace ember::autograd
