// Coalescing and 32-bit splitting of elementwise geometries (offset_calculator.h).
#include "cuda/offset_calculator.h"

#include "ember/error.h"

namespace ember::cuda {

ElementwiseGeometry coalesce(const std::vector<int64_t>& sizes,
                             const std::vector<std::vector<int64_t>>& operand_strides,
                             const std::vector<char*>& base) {
  ElementwiseGeometry g;
  g.base = base;
  const size_t nops = operand_strides.size();
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    bool merge = !g.sizes.empty();
    for (size_t k = 0; k < nops && merge; ++k)
      merge = g.strides.back()[k] == operand_strides[k][d] * sizes[d];
    if (merge) {
      g.sizes.back() *= sizes[d];
      for (size_t k = 0; k < nops; ++k) g.strides.back()[k] = operand_strides[k][d];
      continue;
    }
    g.sizes.push_back(sizes[d]);
    std::vector<int64_t> s(nops);
    for (size_t k = 0; k < nops; ++k) s[k] = operand_strides[k][d];
    g.strides.push_back(std::move(s));
  }
  EMBER_CHECK_AS(NotImplementedError, g.sizes.size() <= size_t(kMaxElementwiseDims),
                 "CUDA elementwise kernels: operands whose strides need more than ",
                 kMaxElementwiseDims, " dims after merging are not supported");
  return g;
}

std::vector<int64_t> broadcast_byte_strides(const Tensor& t, const DimVector& sizes) {
  std::vector<int64_t> strides(sizes.size(), 0);
  size_t lead = sizes.size() - static_cast<size_t>(t.dim());
  for (int64_t d = 0; d < t.dim(); ++d)
    strides[lead + d] = t.size(d) == 1 ? 0 : t.stride(d) * t.element_size();
  return strides;
}

namespace {

constexpr int64_t kMax32 = (int64_t(1) << 31) - 1;

// g with dim 0 restricted to [begin, begin + count).
ElementwiseGeometry slice_outer(const ElementwiseGeometry& g, int64_t begin, int64_t count) {
  ElementwiseGeometry part = g;
  part.sizes[0] = count;
  for (size_t k = 0; k < g.base.size(); ++k) part.base[k] = g.base[k] + begin * g.strides[0][k];
  return part;
}

// g without dim 0, at index i of it.
ElementwiseGeometry drop_outer(const ElementwiseGeometry& g, int64_t i) {
  ElementwiseGeometry part;
  part.sizes.assign(g.sizes.begin() + 1, g.sizes.end());
  part.strides.assign(g.strides.begin() + 1, g.strides.end());
  part.base = g.base;
  for (size_t k = 0; k < g.base.size(); ++k) part.base[k] += i * g.strides[0][k];
  return part;
}

}  // namespace

void for_each_32bit_part(const ElementwiseGeometry& g,
                         const std::function<void(const ElementwiseGeometry&)>& part) {
  if (g.numel() <= kMax32) return part(g);
  int64_t inner = 1;
  for (size_t d = 1; d < g.sizes.size(); ++d) inner *= g.sizes[d];
  if (inner > kMax32) {  // even one step of dim 0 is too big: recurse into each
    for (int64_t i = 0; i < g.sizes[0]; ++i) for_each_32bit_part(drop_outer(g, i), part);
    return;
  }
  int64_t rows = kMax32 / inner;  // steps of dim 0 per part
  for (int64_t begin = 0; begin < g.sizes[0]; begin += rows)
    part(slice_outer(g, begin, std::min(rows, g.sizes[0] - begin)));
}

}  // namespace ember::cuda
