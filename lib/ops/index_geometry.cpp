// Note [Advanced indexing geometry] (index_geometry.h).
#include "ops/index_geometry.h"

namespace ember {

AdvancedIndexGeometry advanced_index_geometry(const DimVector& self_sizes,
                                              const TensorList& indices) {
  AdvancedIndexGeometry g;
  const int64_t nd = static_cast<int64_t>(self_sizes.size());
  DimVector indexed, rest;
  for (int64_t d = 0; d < nd; ++d) {
    bool is_indexed = d < static_cast<int64_t>(indices.size()) && indices[d].defined();
    (is_indexed ? indexed : rest).push_back(d);
    if (is_indexed && g.index_shape.empty()) g.index_shape = indices[d].sizes();
  }
  g.count = static_cast<int64_t>(indexed.size());
  bool adjacent = g.count > 0 && indexed.back() - indexed.front() + 1 == g.count;
  g.before = adjacent ? indexed.front() : 0;
  // perm: the unindexed dims ahead of the block, the block, the remaining dims.
  for (int64_t i = 0; i < g.before; ++i) g.perm.push_back(rest[i]);
  for (int64_t d : indexed) g.perm.push_back(d);
  for (size_t i = g.before; i < rest.size(); ++i) g.perm.push_back(rest[i]);
  for (int64_t i = 0; i < g.before; ++i) g.result_shape.push_back(self_sizes[g.perm[i]]);
  for (int64_t s : g.index_shape) g.result_shape.push_back(s);
  for (int64_t i = g.before + g.count; i < nd; ++i) g.result_shape.push_back(self_sizes[g.perm[i]]);
  return g;
}

}  // namespace ember
