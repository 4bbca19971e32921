// Derivative rows of advanced indexing: index (x[idx], x[mask]) and
// index_put_ (x[idx] = v, x.index_put_(idx, v, accumulate)).
//
// The indices reach the ops as int64 tensors already broadcast to one shape
// (masks turned into coordinates, lib/ops/index_tensor.cpp); an undefined one
// leaves its dim whole. The two rows use each other: index's gradient
// index_put_s (accumulating), index_put_'s value gradient indexes, so second
// derivatives work.
#include "autograd/derivatives.h"
#include "autograd/grad_utils.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape_index.h"
#include "dispatch/args/shape_index.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember::autograd {
namespace {

// Save inputs first, first + 1, ... (the index tensors, however many).
constexpr uint32_t save_inputs_from(int first) { return ~0u << first; }

// The saved indices, inputs first..end (undefined where a dim is whole).
TensorList saved_indices(BackwardCtx& ctx, size_t first) {
  TensorList indices;
  for (size_t i = first; i < ctx.num_inputs(); ++i) indices.push_back(ctx.input(i));
  return indices;
}

// self[indices]: every read element sends its gradient back; an element read
// twice (repeated indices) gets the sum, as in PyTorch.
EMBER_DERIVATIVE(index, save_inputs_from(1), {
  Tensor g = ctx.grad(0);
  Tensor out = zeros_shaped(g, ctx.input_sizes(0));
  TensorList grads{index_put_(out, saved_indices(ctx, 1), g, /*accumulate=*/true)};
  grads.resize(ctx.num_inputs());
  return grads;
});

// self[indices] = values (or += with accumulate). Without accumulate the
// written positions of self are overwritten (zero gradient). values gets what
// each of its elements wrote, also for repeated indices (where one write wins
// the forward, as in PyTorch); the engine sums a broadcast values' gradient.
EMBER_DERIVATIVE(index_put_, save_inputs_from(2), {
  const IndexPutArgs a = IndexPutArgs::from(ctx);
  TensorList indices = saved_indices(ctx, 2);
  Tensor g = ctx.grad(0);
  TensorList grads(ctx.num_inputs());
  if (ctx.needs_grad(0))
    grads[0] = a.accumulate ? g : index_put(g, indices, zeros_shaped(g, {}));
  if (ctx.needs_grad(1)) grads[1] = index(g, indices);
  return grads;
});

}  // namespace
}  // namespace ember::autograd
