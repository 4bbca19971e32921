// Derivative rows of the products and scans: prod, cumprod (cumsum's one-expression
// formula lives in its schema row, lib/dispatch/schema/reduce.toml).
//
// Products divide by the input when it has no zero (checked on the host, as
// PyTorch does). With zeros they use division-free formulas that are exact
// polynomials in x, so that second derivatives are right at zeros too.
#include <algorithm>

#include "autograd/derivatives.h"
#include "autograd/derivatives/formulas.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"
#include "dispatch/args/reduce.h"
#include "dispatch/op_ids/reduce.h"

namespace ember::autograd {
namespace {

bool has_zero(const Tensor& x) { return any(eq(x, Scalar(0))).item<bool>(); }

// out[i] = sum_{k >= i} t[k] along dim.
Tensor reversed_cumsum(const Tensor& t, int64_t dim) {
  return flip(cumsum(flip(t, {dim}), dim), {dim});
}

// out[i] = prod_{j < i} t[j] along the last dim.
Tensor exclusive_cumprod(const Tensor& t) {
  int64_t n = t.sizes().back();
  DimVector one_sizes = t.sizes();
  one_sizes.back() = 1;
  Tensor one = ones(IntList(one_sizes.begin(), one_sizes.end()), TensorOptions(t.dtype()).device(t.device()));
  return cumprod(cat({one, narrow(t, -1, 0, n - 1)}, -1), -1);
}

// prod_{j != i} x_j over `dims`, without dividing: the exclusive prefix times the
// exclusive suffix product, with the reduced dims moved last and flattened into one.
Tensor prod_of_others(const Tensor& x, const DimVector& dims) {
  IntList perm, flat_sizes;
  DimVector moved_sizes;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) {
      perm.push_back(d);
      flat_sizes.push_back(x.sizes()[d]);
    }
  flat_sizes.push_back(reduced_count(x.sizes(), dims));
  perm.insert(perm.end(), dims.begin(), dims.end());
  IntList inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    inverse[perm[i]] = static_cast<int64_t>(i);
    moved_sizes.push_back(x.sizes()[perm[i]]);
  }
  Tensor flat = reshape(permute(x, perm), flat_sizes);
  Tensor others = exclusive_cumprod(flat) * flip(exclusive_cumprod(flip(flat, {-1})), {-1});
  return permute(reshape(others, IntList(moved_sizes.begin(), moved_sizes.end())), inverse);
}

// Attrs: dims, keepdim, dtype (the result's, which the input is cast to).
EMBER_DERIVATIVE_FULL(prod, save_inputs({0}), save_inputs({0}), {
  const ProdArgs a = ProdArgs::from(ctx);
  Tensor y = ctx.output(0), x = ctx.input(0).to(y.dtype());
  Tensor g = expand_reduced(ctx.grad(0), ctx.input_sizes(0), a.dim, a.keepdim);
  if (x.dim() == 0) return {g};
  if (!has_zero(x)) return {g * expand_reduced(y, ctx.input_sizes(0), a.dim, a.keepdim) / x};
  return {g * prod_of_others(x, a.dim)};
});

// cumprod with zeros, first derivative only, O(n) along dim. With z the first zero:
//   i < z:  d/dx_i = (1 / x_i) sum_{i <= k < z} g_k y_k   (the terms from z on vanish)
//   i = z:  d/dx_z = prod_{j < z} x_j * sum_{k >= z} g_k prod_{z < j <= k} x_j
//   i > z:  0 (every y_k with k >= i holds x_z = 0 as well as x_i)
// Its own derivative is not cumprod's second derivative (the masks hide how the
// terms depend on x_z), hence cumprod_zeros_exact under create_graph.
Tensor cumprod_zeros_first_order(const Tensor& g, const Tensor& x, const Tensor& y, int64_t d) {
  Tensor is_zero = eq(x, Scalar(0));
  Tensor zeros_so_far = cumsum(is_zero, d);
  Tensor before = eq(zeros_so_far, Scalar(0));
  Tensor first = logical_and(is_zero, eq(zeros_so_far, Scalar(1)));
  Tensor head = reversed_cumsum(where(before, g * y, Scalar(0)), d) / where(before, x, Scalar(1));
  Tensor prefix = cumprod(where(before, x, Scalar(1)), d);
  Tensor from_z = cumprod(where(logical_or(before, first), Scalar(1), x), d);
  Tensor tail = reversed_cumsum(where(before, Scalar(0), g * from_z), d);
  return where(before, head, where(first, prefix * tail, Scalar(0)));
}

// cumprod with zeros under create_graph: an exact polynomial, O(n^2) along dim.
// Row i of `omit` is x with x_i replaced by 1; its cumprod at k >= i is
// prod_{j <= k, j != i} x_j = d y_k / d x_i.
Tensor cumprod_zeros_exact(const Tensor& g, const Tensor& x, int64_t d) {
  Tensor k = arange(x.sizes()[d], TensorOptions(kInt64).device(x.device()));
  Tensor i = unsqueeze(k, 1);
  Tensor omit = where(eq(i, k), Scalar(1), unsqueeze(movedim(x, d, -1), -2));
  Tensor dy_dx = where(ge(k, i), cumprod(omit, -1), Scalar(0));
  return movedim(sum(dy_dx * unsqueeze(movedim(g, d, -1), -2), IntList{-1}), -1, d);
}

// Attrs: dim, dtype (the result's, which the input is cast to).
EMBER_DERIVATIVE_FULL(cumprod, save_inputs({0}), save_inputs({0}), {
  const CumprodArgs a = CumprodArgs::from(ctx);
  Tensor y = ctx.output(0), g = ctx.grad(0), x = ctx.input(0).to(y.dtype());
  if (x.dim() == 0 || x.sizes()[a.dim] <= 1) return {g};
  if (!has_zero(x)) return {reversed_cumsum(g * y, a.dim) / x};
  return {is_grad_enabled() ? cumprod_zeros_exact(g, x, a.dim) : cumprod_zeros_first_order(g, x, y, a.dim)};
});

}  // namespace
}  // namespace ember::autograd
