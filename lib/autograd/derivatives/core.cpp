// Derivative rows of the core ops: views, copies, fills and random fills.
#include "autograd/derivatives.h"
#include "autograd/grad_utils.h"
#include "ember/ops/factories.h"
#include "ember/ops/view_backward.h"
#include "ember/ops/views.h"
#include "dispatch/args/core.h"
#include "dispatch/op_ids/core.h"

namespace ember::autograd {
namespace {

// The other view rows (view, alias, transpose, expand, squeeze, unsqueeze, slice,
// select) have one-expression formulas in their schema rows (grad.self in
// lib/dispatch/schema/core.toml), generated into build/generated/autograd/.
EMBER_VIEW_DERIVATIVE(permute, {
  const PermuteArgs a = PermuteArgs::from(ctx);
  IntList inverse(a.dims.size());
  for (size_t i = 0; i < a.dims.size(); ++i) inverse[a.dims[i]] = static_cast<int64_t>(i);
  return {permute(ctx.grad(0), inverse)};
});
EMBER_DERIVATIVE(slice_backward, save_none(), {
  const SliceBackwardArgs a = SliceBackwardArgs::from(ctx);
  return {slice(ctx.grad(0), a.dim, a.start, a.end, a.step)};
});
EMBER_DERIVATIVE(select_backward, save_none(), {
  const SelectBackwardArgs a = SelectBackwardArgs::from(ctx);
  return {select(ctx.grad(0), a.dim, a.index)};
});

// copy_(dst, src): dst's old value is gone (no gradient); src gets the gradient,
// reduced to its shape and cast to its dtype by the engine.
EMBER_DERIVATIVE(copy_, save_none(), { return {Tensor(), ctx.grad(0)}; });
// Overwriting with constants or random values: the old value gets no gradient.
EMBER_DERIVATIVE(fill_, save_none(), { return {Tensor()}; });
EMBER_DERIVATIVE(uniform_, save_none(), { return {Tensor()}; });
EMBER_DERIVATIVE(normal_, save_none(), { return {Tensor()}; });
EMBER_DERIVATIVE(random_, save_none(), { return {Tensor()}; });
EMBER_DERIVATIVE(bernoulli_, save_none(), { return {Tensor()}; });

}  // namespace
}  // namespace ember::autograd
