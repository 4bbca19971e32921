// Derivative rows of the matrix products.
#include "autograd/derivatives.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/linalg.h"
#include "ember/ops/views.h"

namespace ember::autograd {
namespace {

EMBER_DERIVATIVE(mm, save_inputs({0, 1}), {
  Tensor g = ctx.grad(0);
  return {ctx.needs_grad(0) ? mm(g, t(ctx.input(1))) : Tensor(),
          ctx.needs_grad(1) ? mm(t(ctx.input(0)), g) : Tensor()};
});
EMBER_DERIVATIVE(bmm, save_inputs({0, 1}), {
  Tensor g = ctx.grad(0);
  return {ctx.needs_grad(0) ? bmm(g, transpose(ctx.input(1), 1, 2)) : Tensor(),
          ctx.needs_grad(1) ? bmm(transpose(ctx.input(0), 1, 2), g) : Tensor()};
});
EMBER_DERIVATIVE(mv, save_inputs({0, 1}), {
  Tensor g = ctx.grad(0);
  return {ctx.needs_grad(0) ? mm(unsqueeze(g, 1), unsqueeze(ctx.input(1), 0)) : Tensor(),
          ctx.needs_grad(1) ? mv(t(ctx.input(0)), g) : Tensor()};
});
EMBER_DERIVATIVE(dot, save_inputs({0, 1}), {
  Tensor g = ctx.grad(0);
  return {ctx.needs_grad(0) ? g * ctx.input(1) : Tensor(),
          ctx.needs_grad(1) ? g * ctx.input(0) : Tensor()};
});
EMBER_DERIVATIVE(addmm, save_inputs({1, 2}), {
  Tensor g = ctx.grad(0);
  Scalar beta = ctx.attr(0).to_scalar(), alpha = ctx.attr(1).to_scalar();
  return {ctx.needs_grad(0) ? g * beta : Tensor(),
          ctx.needs_grad(1) ? mm(g, t(ctx.input(2))) * alpha : Tensor(),
          ctx.needs_grad(2) ? mm(t(ctx.input(1)), g) * alpha : Tensor()};
});

}  // namespace
}  // namespace ember::autograd
