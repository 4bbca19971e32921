// Derivative rows of the ops whose values are elements picked from the input
// (max/min over a dim, sort, topk): the gradient goes back to the picked index,
// as in PyTorch (the first occurrence at ties, as the forward picks it). Their
// index outputs have no gradient (nonzero and searchsorted: non_differentiable in their
// schema rows, generated). unique has no row on purpose: as in
// PyTorch its values require grad and backward through them raises
// NotImplementedError (a merged value has no derivative with respect to its copies).
#include "autograd/derivatives.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"
#include "dispatch/args/reduce.h"
#include "dispatch/args/shape_index.h"
#include "dispatch/op_ids/reduce.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember::autograd {
namespace {

// Scatters grad (the values' gradient) into zeros of the input's shape at
// `indices` along dim. keepdim: whether grad still has dim (sort and topk do).
Tensor picked_backward(BackwardCtx& ctx, int64_t dim, bool keepdim) {
  Tensor g = ctx.grad(0), indices = ctx.output(1);
  const DimVector& sizes = ctx.input_sizes(0);
  if (sizes.empty()) return g;  // a 0-dim input: its one element was picked
  if (!keepdim) {
    g = unsqueeze(g, dim);
    indices = unsqueeze(indices, dim);
  }
  Tensor zero = zeros(IntList(sizes.begin(), sizes.end()), TensorOptions(g.dtype()).device(g.device()));
  return scatter(zero, dim, indices, g);
}

// max_dim / min_dim attrs: dim, keepdim. sort: dim, descending, stable. topk: k, dim, ...
EMBER_DERIVATIVE_FULL(max_dim, save_none(), save_inputs({1}), {
  const MaxDimArgs a = MaxDimArgs::from(ctx);
  return {picked_backward(ctx, a.dim, a.keepdim)};
});
EMBER_DERIVATIVE_FULL(min_dim, save_none(), save_inputs({1}), {
  const MinDimArgs a = MinDimArgs::from(ctx);
  return {picked_backward(ctx, a.dim, a.keepdim)};
});
EMBER_DERIVATIVE_FULL(sort, save_none(), save_inputs({1}), {
  return {picked_backward(ctx, SortArgs::from(ctx).dim, true)};
});
EMBER_DERIVATIVE_FULL(topk, save_none(), save_inputs({1}), {
  return {picked_backward(ctx, TopkArgs::from(ctx).dim, true)};
});


}  // namespace
}  // namespace ember::autograd
