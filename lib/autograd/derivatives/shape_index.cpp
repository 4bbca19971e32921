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

// scatter_reduce_ (sum, prod, amax, amin; "mean" is sum and a division, lib/ops),
// as PyTorch's scatter_reduce_backward. Only src's corner that index covers is read.
Tensor index_corner(const Tensor& src, const Tensor& index) {
  Tensor out = src;
  for (int64_t k = 0; k < index.dim(); ++k)
    if (out.size(k) != index.size(k)) out = narrow(out, k, 0, index.size(k));
  return out;
}

EMBER_DERIVATIVE_FULL(scatter_reduce_, save_inputs({0, 1, 2}), save_inputs({0}), {
  const ScatterReduceArgs a = ScatterReduceArgs::from(ctx);
  const int64_t d = a.dim;
  Tensor g = ctx.grad(0), self = ctx.input(0), index = ctx.input(1);
  if (index.numel() == 0) return {g, Tensor(), zeros_shaped(g, ctx.input_sizes(2))};
  Tensor src = index_corner(ctx.input(2), index);
  // Where values were reduced into self (with include_self false, self's value there is dropped).
  Tensor touched = scatter(zeros_like(self, TensorOptions(kBool)), d, index, Scalar(true));
  Tensor grad_self, grad_src;
  if (a.reduce == "sum") {
    grad_self = a.include_self ? g : masked_fill(g, touched, Scalar(0));
    grad_src = gather(g, d, index);
  } else if (a.reduce == "prod") {
    // The saved result is read only here and below: "mean" divides it in place after
    // the row ran, and its sum formula needs no result.
    Tensor result = ctx.output(0);
    // result = self * (the product of src at each position), self included or not.
    Tensor src_product = scatter_reduce(ones_like(self), d, index, src, "prod");
    grad_self = a.include_self ? g * src_product : masked_fill(g, touched, Scalar(0));
    // d result / d src_j: the product of everything else at its position. For a
    // nonzero src_j that is result / src_j; for a zero one, the product of the
    // nonzero others if it is the only zero there, else 0.
    Tensor self_part = a.include_self ? self : ones_like(self);
    Tensor src_zero = eq(src, Scalar(0));
    Tensor zeros_at = scatter_add(eq(self_part, Scalar(0)).to(kInt64), d, index, src_zero.to(kInt64));
    Tensor nonzero_product = scatter_reduce(where(eq(self_part, Scalar(0)), Scalar(1), self_part), d,
                                            index, where(src_zero, Scalar(1), src), "prod");
    Tensor others = where(src_zero,
                          where(eq(gather(zeros_at, d, index), Scalar(1)), gather(nonzero_product, d, index),
                                Scalar(0)),
                          gather(result, d, index) / where(src_zero, Scalar(1), src));
    grad_src = gather(g, d, index) * others;
  } else {  // amax, amin: the gradient is shared evenly by the values equal to the result
    Tensor result = ctx.output(0);
    Tensor self_is_result = eq(self, result);
    if (!a.include_self) self_is_result = logical_and(self_is_result, logical_not(touched));
    Tensor src_is_result = eq(src, gather(result, d, index));
    Tensor count = scatter_add(self_is_result.to(g.dtype()), d, index, src_is_result.to(g.dtype()));
    Tensor share = g / count;
    grad_self = where(self_is_result, share, Scalar(0));
    grad_src = where(src_is_result, gather(share, d, index), Scalar(0));
  }
  return {ctx.needs_grad(0) ? grad_self : Tensor(), Tensor(), pad_to(grad_src, ctx.input_sizes(2))};
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
