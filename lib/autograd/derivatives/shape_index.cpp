// Derivative rows of the shape_index ops: cat, flip, tril/triu, the ops along a
// dim through an index (gather, scatter, index_select, index_add, ...), take
// and masked_fill. Advanced indexing (index, index_put_) is in indexing.cpp.
//
// Every formula is written with ops that have rows of their own, so second
// derivatives work: gather's gradient scatter-adds, scatter_add's gradient
// gathers; index_select's gradient index-adds, index_add's index-selects.
// The dim ops see self, index and src as at least 1-d (lib/ops/index_dim.cpp),
// so these formulas never meet a 0-dim tensor.
#include <string>

#include "autograd/derivatives.h"
#include "autograd/grad_utils.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/view_backward.h"
#include "ember/ops/views.h"
#include "dispatch/args/shape_index.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember::autograd {
namespace {

// scatter's src may be larger than index outside dim; only its leading corner
// (index's shape) is read, the rest gets zero gradient. slice_backward pads
// one dim at a time and is differentiable itself.
Tensor pad_to(Tensor g, const DimVector& sizes) {
  for (int64_t k = 0; k < g.dim(); ++k) {
    const int64_t have = g.sizes()[k];
    if (have == sizes[k]) continue;
    DimVector padded = g.sizes();
    padded[k] = sizes[k];
    g = slice_backward(g, padded, k, 0, have, 1);
  }
  return g;
}

// The gradient of src for the scatters: what each of its read elements wrote
// (an empty index, whose shape is not checked against src, read nothing).
Tensor scattered_src_grad(BackwardCtx& ctx, int64_t dim) {
  if (!ctx.needs_grad(2)) return Tensor();
  Tensor g = ctx.grad(0), index = ctx.input(1);
  if (index.numel() == 0) return zeros_shaped(g, ctx.input_sizes(2));
  return pad_to(gather(g, dim, index), ctx.input_sizes(2));
}

// cat: each input gets its slice of the gradient along dim (empty ones too).
EMBER_DERIVATIVE(cat, save_none(), {
  const CatArgs a = CatArgs::from(ctx);
  Tensor g = ctx.grad(0);
  TensorList grads;
  int64_t offset = 0;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const int64_t length = ctx.input_sizes(i)[a.dim];
    grads.push_back(ctx.needs_grad(i) ? narrow(g, a.dim, offset, length) : Tensor());
    offset += length;
  }
  return grads;
});

EMBER_DERIVATIVE(flip, save_none(), {
  const FlipArgs a = FlipArgs::from(ctx);
  return {flip(ctx.grad(0), IntList(a.dims.begin(), a.dims.end()))};
});
EMBER_DERIVATIVE(tril, save_none(), { return {tril(ctx.grad(0), TrilArgs::from(ctx).diagonal)}; });
EMBER_DERIVATIVE(triu, save_none(), { return {triu(ctx.grad(0), TriuArgs::from(ctx).diagonal)}; });

// gather: every read element sends its gradient back, summed over repeats.
EMBER_DERIVATIVE(gather, save_inputs({1}), {
  const GatherArgs a = GatherArgs::from(ctx);
  Tensor g = ctx.grad(0);
  Tensor out = zeros_shaped(g, ctx.input_sizes(0));
  return {scatter_add_(out, a.dim, ctx.input(1), g), Tensor()};
});
// scatter_add_: self passes through; src's elements were added in.
EMBER_DERIVATIVE(scatter_add_, save_inputs({1}), {
  return {ctx.grad(0), Tensor(), scattered_src_grad(ctx, ScatterAddArgs::from(ctx).dim)};
});

// scatter_ (tensor or value): with no reduce, the written positions of self
// are overwritten (zero gradient); with "add", self passes through.
Tensor scattered_self_grad(BackwardCtx& ctx, int64_t dim, const std::string& reduce) {
  if (!ctx.needs_grad(0)) return Tensor();
  if (reduce == "add") return ctx.grad(0);
  return scatter(ctx.grad(0), dim, ctx.input(1), Scalar(0.0));
}

EMBER_DERIVATIVE(scatter_, save_inputs({1}), {
  const ScatterArgs a = ScatterArgs::from(ctx);
  EMBER_CHECK_AS(NotImplementedError, a.reduce != "multiply", "the derivative of scatter_ with "
                 "reduce='multiply' is not implemented (nor is it in PyTorch)");
  return {scattered_self_grad(ctx, a.dim, a.reduce), Tensor(), scattered_src_grad(ctx, a.dim)};
});
// With "multiply", self was scaled by value once per write: value ** count.
EMBER_DERIVATIVE(scatter_value_, save_inputs({1}), {
  const ScatterValueArgs a = ScatterValueArgs::from(ctx);
  if (a.reduce != "multiply") return {scattered_self_grad(ctx, a.dim, a.reduce), Tensor()};
  Tensor g = ctx.grad(0);
  Tensor factor = scatter(ones_like(g), a.dim, ctx.input(1), a.value, a.reduce);
  return {g * factor, Tensor()};
});

// index_select: the selected slices send their gradient back, summed over repeats.
EMBER_DERIVATIVE(index_select, save_inputs({1}), {
  Tensor g = ctx.grad(0);
  Tensor out = zeros_shaped(g, ctx.input_sizes(0));
  return {index_add_(out, IndexSelectArgs::from(ctx).dim, ctx.input(1), g), Tensor()};
});
// index_add_: self passes through; source was added in, scaled by alpha.
EMBER_DERIVATIVE(index_add_, save_inputs({1}), {
  Tensor source_grad;
  if (ctx.needs_grad(2)) {
    const IndexAddArgs a = IndexAddArgs::from(ctx);
    source_grad = index_select(ctx.grad(0), a.dim, ctx.input(1));
    if (a.alpha.to_double() != 1.0) source_grad = source_grad * a.alpha;
  }
  return {ctx.grad(0), Tensor(), source_grad};
});
// index_copy_: the copied-over slices of self get zero; source gets what it wrote.
EMBER_DERIVATIVE(index_copy_, save_inputs({1}), {
  const IndexCopyArgs a = IndexCopyArgs::from(ctx);
  Tensor g = ctx.grad(0), index = ctx.input(1);
  return {ctx.needs_grad(0) ? index_fill(g, a.dim, index, Scalar(0.0)) : Tensor(), Tensor(),
          ctx.needs_grad(2) ? index_select(g, a.dim, index) : Tensor()};
});
EMBER_DERIVATIVE(index_fill_, save_inputs({1}), {
  return {index_fill(ctx.grad(0), IndexFillArgs::from(ctx).dim, ctx.input(1), Scalar(0.0)), Tensor()};
});

// take reads self flattened: its gradient accumulates into the read positions
// (negative indices wrap, as in the forward, and repeats add up).
EMBER_DERIVATIVE(take, save_inputs({1}), {
  const DimVector& sizes = ctx.input_sizes(0);
  Tensor g = ctx.grad(0);
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  Tensor flat = zeros_shaped(g, DimVector{numel});
  index_put_(flat, TensorList{reshape(ctx.input(1), {-1})}, reshape(g, {-1}), /*accumulate=*/true);
  return {reshape(flat, IntList(sizes.begin(), sizes.end())), Tensor()};
});

EMBER_DERIVATIVE(masked_fill_, save_inputs({1}), {
  return {masked_fill(ctx.grad(0), ctx.input(1), Scalar(0.0)), Tensor()};
});

}  // namespace
}  // namespace ember::autograd
