// Derivative rows of the reductions (first set).
#include <algorithm>

#include "autograd/derivatives.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/views.h"

namespace ember::autograd {
namespace {

// The gradient of a reduction over dims, brought back to the input's shape.
Tensor expand_reduced(const Tensor& grad, const DimVector& input_sizes, const DimVector& dims,
                      bool keepdim) {
  Tensor g = grad;
  int64_t nd = static_cast<int64_t>(input_sizes.size());
  if (!keepdim && nd > 0) {
    std::vector<int64_t> wrapped;
    if (dims.empty())
      for (int64_t d = 0; d < nd; ++d) wrapped.push_back(d);
    else
      for (int64_t d : dims) wrapped.push_back(wrap_dim(d, nd, "sum_backward"));
    std::sort(wrapped.begin(), wrapped.end());
    if (static_cast<int64_t>(wrapped.size()) == nd) g = reshape(g, IntList(nd, 1));
    else
      for (int64_t d : wrapped) g = unsqueeze(g, d);
  }
  return expand(g, IntList(input_sizes.begin(), input_sizes.end()));
}

int64_t reduced_count(const DimVector& sizes, const DimVector& dims) {
  int64_t n = 1, nd = static_cast<int64_t>(sizes.size());
  if (dims.empty()) {
    for (int64_t s : sizes) n *= s;
  } else {
    for (int64_t d : dims) n *= sizes[wrap_dim(d, nd, "mean_backward")];
  }
  return n;
}

EMBER_DERIVATIVE(sum, save_none(), {
  return {expand_reduced(ctx.grad(0), ctx.input_sizes(0), ctx.attr(0).to_ints(), ctx.attr(1).to_bool())};
});
EMBER_DERIVATIVE(mean, save_none(), {
  const DimVector& dims = ctx.attr(0).to_ints();
  Tensor g = expand_reduced(ctx.grad(0), ctx.input_sizes(0), dims, ctx.attr(1).to_bool());
  return {g / Scalar(static_cast<double>(reduced_count(ctx.input_sizes(0), dims)))};
});
EMBER_NON_DIFFERENTIABLE(argmax);
EMBER_NON_DIFFERENTIABLE(argmin);
EMBER_NON_DIFFERENTIABLE(any);
EMBER_NON_DIFFERENTIABLE(all);
EMBER_NON_DIFFERENTIABLE(count_nonzero);

}  // namespace
}  // namespace ember::autograd

namespace ember::autograd {
namespace {

EMBER_DERIVATIVE_FULL(softmax, save_none(), save_inputs({0}), {
  Tensor y = ctx.output(0), g = ctx.grad(0);
  int64_t d = ctx.attr(0).to_int();
  return {y * (g - sum(g * y, IntList{d}, true))};
});
EMBER_DERIVATIVE_FULL(log_softmax, save_none(), save_inputs({0}), {
  Tensor y = ctx.output(0), g = ctx.grad(0);
  int64_t d = ctx.attr(0).to_int();
  return {g - exp(y) * sum(g, IntList{d}, true)};
});
EMBER_DERIVATIVE_FULL(logsumexp, save_inputs({0}), save_inputs({0}), {
  const DimVector& dims = ctx.attr(0).to_ints();
  bool keep = ctx.attr(1).to_bool();
  Tensor g = expand_reduced(ctx.grad(0), ctx.input_sizes(0), dims, keep);
  Tensor out = expand_reduced(ctx.output(0), ctx.input_sizes(0), dims, keep);
  return {g * exp(ctx.input(0) - out)};
});

}  // namespace
}  // namespace ember::autograd

namespace ember::autograd {
namespace {

// var over dims with a correction: d var / dx = 2 (x - mean) / (N - correction).
Tensor var_backward(BackwardCtx& ctx, const Tensor& grad_var) {
  const DimVector& dims = ctx.attr(0).to_ints();
  double correction = ctx.attr(1).to_double();
  bool keep = ctx.attr(2).to_bool();
  Tensor x = ctx.input(0);
  IntList all_dims;
  if (dims.empty())
    for (int64_t d = 0; d < x.dim(); ++d) all_dims.push_back(d);
  else
    all_dims.assign(dims.begin(), dims.end());
  double n = static_cast<double>(reduced_count(ctx.input_sizes(0), dims));
  Tensor centered = x - mean(x, all_dims, true);
  Tensor g = expand_reduced(grad_var, ctx.input_sizes(0), dims, keep);
  return g * centered * (2.0 / (n - correction));
}

EMBER_DERIVATIVE(var, save_inputs({0}), { return {var_backward(ctx, ctx.grad(0))}; });
EMBER_DERIVATIVE_FULL(std, save_inputs({0}), save_inputs({0}), {
  return {var_backward(ctx, ctx.grad(0) / (ctx.output(0) * 2))};
});

// amax/amin: the gradient is shared evenly among the elements equal to the result.
Tensor extremum_backward(BackwardCtx& ctx) {
  const DimVector& dims = ctx.attr(0).to_ints();
  bool keep = ctx.attr(1).to_bool();
  Tensor x = ctx.input(0);
  Tensor hit = eq(x, expand_reduced(ctx.output(0), ctx.input_sizes(0), dims, keep)).to(x.dtype());
  IntList all_dims;
  if (dims.empty())
    for (int64_t d = 0; d < x.dim(); ++d) all_dims.push_back(d);
  else
    all_dims.assign(dims.begin(), dims.end());
  Tensor count = x.dim() ? sum(hit, all_dims, true) : hit;
  return expand_reduced(ctx.grad(0), ctx.input_sizes(0), dims, keep) * hit / count;
}
EMBER_DERIVATIVE_FULL(amax, save_inputs({0}), save_inputs({0}), { return {extremum_backward(ctx)}; });
EMBER_DERIVATIVE_FULL(amin, save_inputs({0}), save_inputs({0}), { return {extremum_backward(ctx)}; });

}  // namespace
}  // namespace ember::autograd
