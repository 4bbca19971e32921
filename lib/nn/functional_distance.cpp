// F.normalize, F.cosine_similarity, F.pairwise_distance and F.pdist: composites of
// norm and elementwise ops, ATen's formulas.
#include <algorithm>
#include <vector>

#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/nn/functional.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"

namespace ember::nn::functional {

Tensor normalize(const Tensor& input, double p, int64_t dim, double eps) {
  Tensor denom = clamp_min(norm(input, p, {dim}, /*keepdim=*/true), eps);
  return input / denom;
}

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  // Integer (and bool) inputs compute in the default float dtype, as torch.
  Tensor a = is_floating(x1.dtype()) ? x1 : x1.to(DType::Float32);
  Tensor b = is_floating(x2.dtype()) ? x2 : x2.to(DType::Float32);
  DimVector shape = broadcast_shapes(a.sizes(), b.sizes(), "cosine_similarity");
  IntList sizes(shape.begin(), shape.end());
  Tensor ab[2] = {a.expand(sizes), b.expand(sizes)};
  auto clamped_norm = [&](const Tensor& x) {
    Tensor n = norm(x, 2.0, {dim}, /*keepdim=*/true);
    // torch clamps the norm in place under no_grad: the gradient sees the norm unclamped.
    Tensor shift;
    {
      NoGradGuard no_grad;
      shift = clamp_min(n, eps) - n;
    }
    return n + shift;
  };
  return ((ab[0] / clamped_norm(ab[0])) * (ab[1] / clamped_norm(ab[1]))).sum(dim);
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  int64_t out_dim = std::max(x1.dim(), x2.dim());
  int64_t inner = out_dim - 1;
  if (out_dim == 0) return norm(x1 - x2 + eps, p, {}, keepdim);
  return norm(x1 - x2 + eps, p, {inner}, keepdim);
}

Tensor pdist(const Tensor& input, double p) {
  EMBER_CHECK(input.dim() == 2, "pdist only supports 2D tensors, got: ", input.dim(), "D");
  EMBER_CHECK(is_floating(input.dtype()), "pdist only supports floating-point dtypes");
  EMBER_CHECK(p >= 0, "pdist only supports non-negative p values");
  int64_t n = input.size(0);
  std::vector<int64_t> rows, cols;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) rows.push_back(i), cols.push_back(j);
  int64_t m = static_cast<int64_t>(rows.size());
  TensorOptions idx_opts = TensorOptions().dtype(DType::Int64).device(input.device());
  Tensor a = index_select(input, 0, from_vector(rows, {m}, idx_opts));
  Tensor b = index_select(input, 0, from_vector(cols, {m}, idx_opts));
  return norm(a - b, p, {1});
}

}  // namespace ember::nn::functional
