// The views of advanced indexing (kernels/index_plan.h).
#include "kernels/index_plan.h"

#include "kernels/restride.h"

namespace ember {

IndexViews index_views(const Tensor& self, const Tensor& offsets, const AdvancedIndexGeometry& g) {
  const int64_t nd = self.dim(), index_nd = static_cast<int64_t>(g.index_shape.size());
  DimVector self_strides, off_strides;
  DimVector index_strides = contiguous_strides(g.index_shape);
  for (int64_t i = 0; i < g.before; ++i) {
    self_strides.push_back(self.strides()[g.perm[i]]);
    off_strides.push_back(0);
  }
  for (int64_t i = 0; i < index_nd; ++i) {
    self_strides.push_back(0);
    off_strides.push_back(index_strides[i]);
  }
  for (int64_t i = g.before + g.count; i < nd; ++i) {
    self_strides.push_back(self.strides()[g.perm[i]]);
    off_strides.push_back(0);
  }
  return {restride(self, g.result_shape, self_strides, self.storage_offset()),
          restride(offsets, g.result_shape, off_strides, 0)};
}

}  // namespace ember
