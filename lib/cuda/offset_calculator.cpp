// Coalescing and 32-bit splitting of elementwise geometries (offset_calculator.h).
#include "cuda/offset_calculator.h"

#include "ember/error.h"

namespace ember::cuda {

ElementwiseGeometry coalesce(const GeometrySizes& sizes, const OperandStrides& operand_strides,
                             const OperandBytes& base) {
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
    auto& s = g.strides.emplace_back(nops, int64_t{0});
    for (size_t k = 0; k < nops; ++k) s[k] = operand_strides[k][d];
  }
  EMBER_CHECK_AS(NotImplementedError, g.sizes.size() <= size_t(kMaxElementwiseDims),
                 "CUDA elementwise kernels: operands whose strides need more than ",
                 kMaxElementwiseDims, " dims after merging are not supported");
  return g;
}

ByteStrides broadcast_byte_strides(const Tensor& t, const DimVector& sizes) {
  ByteStrides strides(sizes.size(), 0);
  size_t lead = sizes.size() - static_cast<size_t>(t.dim());
  for (int64_t d = 0; d < t.dim(); ++d)
    strides[lead + d] = t.size(d) == 1 ? 0 : t.stride(d) * t.element_size();
  return strides;
}

namespace offsets_detail {

ElementwiseGeometry slice_outer(const ElementwiseGeometry& g, int64_t begin, int64_t count) {
  ElementwiseGeometry part = g;
  part.sizes[0] = count;
  for (size_t k = 0; k < g.base.size(); ++k) part.base[k] = g.base[k] + begin * g.strides[0][k];
  return part;
}

ElementwiseGeometry drop_outer(const ElementwiseGeometry& g, int64_t i) {
  ElementwiseGeometry part;
  part.sizes.assign(g.sizes.begin() + 1, g.sizes.end());
  part.strides.assign(g.strides.begin() + 1, g.strides.end());
  part.base = g.base;
  for (size_t k = 0; k < g.base.size(); ++k) part.base[k] += i * g.strides[0][k];
  return part;
}

}  // namespace offsets_detail

}  // namespace ember::cuda
