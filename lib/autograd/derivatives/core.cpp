// Derivative rows of the core ops: views, copies, fills and random fills.
#include "autograd/derivatives.h"
#include "autograd/grad_utils.h"
#include "ember/ops/factories.h"
#include "ember/ops/view_backward.h"
#include "ember/ops/views.h"

namespace ember::autograd {
namespace {

IntList to_list(const DimVector& v) { return IntList(v.begin(), v.end()); }

EMBER_VIEW_DERIVATIVE(view, { return {reshape(ctx.grad(0), to_list(ctx.input_sizes(0)))}; });
EMBER_VIEW_DERIVATIVE(alias, { return {ctx.grad(0)}; });
EMBER_VIEW_DERIVATIVE(transpose, {
  return {transpose(ctx.grad(0), ctx.attr(0).to_int(), ctx.attr(1).to_int())};
});
EMBER_VIEW_DERIVATIVE(permute, {
  const DimVector& dims = ctx.attr(0).to_ints();
  IntList inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) inverse[dims[i]] = static_cast<int64_t>(i);
  return {permute(ctx.grad(0), inverse)};
});
EMBER_VIEW_DERIVATIVE(expand, { return {sum_to(ctx.grad(0), ctx.input_sizes(0))}; });
EMBER_VIEW_DERIVATIVE(squeeze, { return {reshape(ctx.grad(0), to_list(ctx.input_sizes(0)))}; });
EMBER_VIEW_DERIVATIVE(unsqueeze, { return {squeeze(ctx.grad(0), ctx.attr(0).to_int())}; });
EMBER_VIEW_DERIVATIVE(slice, {
  return {slice_backward(ctx.grad(0), ctx.input_sizes(0), ctx.attr(0).to_int(), ctx.attr(1).to_int(),
                         ctx.attr(2).to_int(), ctx.attr(3).to_int())};
});
EMBER_VIEW_DERIVATIVE(select, {
  return {select_backward(ctx.grad(0), ctx.input_sizes(0), ctx.attr(0).to_int(), ctx.attr(1).to_int())};
});
EMBER_DERIVATIVE(slice_backward, save_none(), {
  return {slice(ctx.grad(0), ctx.attr(1).to_int(), ctx.attr(2).to_int(), ctx.attr(3).to_int(),
                ctx.attr(4).to_int())};
});
EMBER_DERIVATIVE(select_backward, save_none(), {
  return {select(ctx.grad(0), ctx.attr(1).to_int(), ctx.attr(2).to_int())};
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
