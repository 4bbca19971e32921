// Derivative rows of the nn ops, through the fused backward kernels of
// lib/ops/nn_backward_*.cpp (first set: the losses).
#include "autograd/derivatives.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/nn_backward.h"

namespace ember::autograd {
namespace {

EMBER_DERIVATIVE(cross_entropy, save_inputs({0, 1, 2}), {
  return {cross_entropy_backward(ctx.grad(0), ctx.input(0), ctx.input(1), ctx.input(2),
                                 ctx.attr(1).to_int(), ctx.attr(0).to_int(), ctx.attr(2).to_double()),
          Tensor(), Tensor()};
});
EMBER_DERIVATIVE(nll_loss, save_inputs({0, 1, 2}), {
  return {nll_loss_backward(ctx.grad(0), ctx.input(0), ctx.input(1), ctx.input(2),
                            ctx.attr(1).to_int(), ctx.attr(0).to_int()),
          Tensor(), Tensor()};
});

// Pointwise losses: the gradient wrt the target is minus the one wrt the input.
TensorList pair_grads(BackwardCtx& ctx, const Tensor& grad_input) {
  return {ctx.needs_grad(0) ? grad_input : Tensor(), ctx.needs_grad(1) ? neg(grad_input) : Tensor()};
}
EMBER_DERIVATIVE(mse_loss, save_inputs({0, 1}), {
  return pair_grads(ctx, mse_loss_backward(ctx.grad(0), ctx.input(0), ctx.input(1), ctx.attr(0).to_int()));
});
EMBER_DERIVATIVE(l1_loss, save_inputs({0, 1}), {
  return pair_grads(ctx, l1_loss_backward(ctx.grad(0), ctx.input(0), ctx.input(1), ctx.attr(0).to_int()));
});
EMBER_DERIVATIVE(smooth_l1_loss, save_inputs({0, 1}), {
  return pair_grads(ctx, smooth_l1_loss_backward(ctx.grad(0), ctx.input(0), ctx.input(1),
                                                 ctx.attr(0).to_int(), ctx.attr(1).to_double()));
});
EMBER_DERIVATIVE(huber_loss, save_inputs({0, 1}), {
  return pair_grads(ctx, huber_loss_backward(ctx.grad(0), ctx.input(0), ctx.input(1),
                                             ctx.attr(0).to_int(), ctx.attr(1).to_double()));
});
EMBER_NON_DIFFERENTIABLE(one_hot);

EMBER_DERIVATIVE_FULL(layer_norm, save_inputs({0, 1, 2}), save_inputs({1, 2}), {
  const DimVector& ns = ctx.attr(0).to_ints();
  auto [gi, gw, gb] = native_layer_norm_backward(
      ctx.grad(0), ctx.input(0), IntList(ns.begin(), ns.end()), ctx.output(1), ctx.output(2),
      ctx.input(1), ctx.input(2),
      GradMask{ctx.needs_grad(0), ctx.needs_grad(1) && ctx.input_defined(1),
               ctx.needs_grad(2) && ctx.input_defined(2)});
  return {gi, gw, gb};
});
EMBER_DERIVATIVE(embedding, save_inputs({1}), {
  const Attr& padding = ctx.attr(0);
  return {embedding_dense_backward(ctx.grad(0), ctx.input(1), ctx.input_sizes(0)[0],
                                   padding.is_none() ? -1 : padding.to_int()),
          Tensor()};
});
EMBER_DERIVATIVE_FULL(dropout, save_none(), save_inputs({1}), {
  double p = ctx.attr(0).to_double();
  return {native_dropout_backward(ctx.grad(0), ctx.output(1), p < 1 ? 1.0 / (1.0 - p) : 0.0)};
});

}  // namespace
}  // namespace ember::autograd
