// Derivative rows of the matrix products.
#include <algorithm>

#include "autograd/derivatives.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/linalg.h"
#include "ember/ops/views.h"
#include "dispatch/args/linalg.h"
#include "dispatch/op_ids/linalg.h"

namespace ember::autograd {
namespace {

// A matrix stored column-major (the transpose of a contiguous one, like the
// weight of linear seen through .t()).
bool column_major(const Tensor& m) {
  return m.dim() == 2 && m.stride(0) == 1 && m.stride(1) == std::max<int64_t>(m.size(0), 1) &&
         m.size(0) > 1 && m.size(1) > 1;
}

// The gradients of mm(mat1, mat2) given the output gradient g, each computed in
// the layout of the operand it belongs to, so that a gradient reaching a
// parameter through a transpose view arrives contiguous (as PyTorch does) and
// needs no copy when it is accumulated.
Tensor mm_grad_mat1(const Tensor& g, const Tensor& mat1, const Tensor& mat2) {
  return column_major(mat1) ? t(mm(mat2, t(g))) : mm(g, t(mat2));
}
Tensor mm_grad_mat2(const Tensor& g, const Tensor& mat1, const Tensor& mat2) {
  return column_major(mat2) ? t(mm(t(g), mat1)) : mm(t(mat1), g);
}

// x * s, skipping the pass over x when s is 1 (the common alpha and beta).
Tensor scaled(const Tensor& x, const Scalar& s) {
  return s.to_double() == 1.0 ? x : x * s;
}

EMBER_DERIVATIVE(mm, save_inputs({0, 1}), {
  Tensor g = ctx.grad(0);
  return {ctx.needs_grad(0) ? mm_grad_mat1(g, ctx.input(0), ctx.input(1)) : Tensor(),
          ctx.needs_grad(1) ? mm_grad_mat2(g, ctx.input(0), ctx.input(1)) : Tensor()};
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
  const AddmmArgs a = AddmmArgs::from(ctx);
  return {ctx.needs_grad(0) ? scaled(g, a.beta) : Tensor(),
          ctx.needs_grad(1) ? scaled(mm_grad_mat1(g, ctx.input(1), ctx.input(2)), a.alpha) : Tensor(),
          ctx.needs_grad(2) ? scaled(mm_grad_mat2(g, ctx.input(1), ctx.input(2)), a.alpha) : Tensor()};
});

}  // namespace
}  // namespace ember::autograd
