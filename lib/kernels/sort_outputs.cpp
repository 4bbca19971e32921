// The host side of sort and topk for every device (kernels/sort_outputs.h).
#include "kernels/sort_outputs.h"

#include <optional>

#include "dispatch/args/shape_index.h"
#include "ember/ops/factories.h"
#include "kernels/restride.h"

namespace ember {

namespace {
// A 0-dim self is sorted as a 1-element 1-d tensor.
Tensor as_1d(const Tensor& t) { return t.dim() ? t : restride(t, {1}, {1}, t.storage_offset()); }

// The first k (none: all) elements of each slice along dim, and their indices.
void sort_outputs(OpCall& c, int64_t dim, std::optional<int64_t> k, bool descending,
                  SortSlicesFn slices) {
  const Tensor& self = c.in(0);
  if (!self.dim()) dim = 0;
  const int64_t keep = k ? *k : as_1d(self).sizes()[dim];
  DimVector sizes = self.sizes();
  if (self.dim()) sizes[dim] = keep;
  TensorOptions opts = TensorOptions(self.dtype()).device(self.device());
  Tensor values = empty(sizes, opts);
  Tensor indices = empty(sizes, opts.dtype(kInt64));
  if (values.numel()) slices(as_1d(values), as_1d(indices), as_1d(self), dim, keep, descending);
  c.outputs.push_back(values);
  c.outputs.push_back(indices);
}
}  // namespace

void sort_or_topk(OpCall& c, bool topk, SortSlicesFn slices) {
  if (topk) {
    const TopkArgs a = TopkArgs::from(c);
    sort_outputs(c, a.dim, a.k, a.largest, slices);
  } else {
    const SortArgs a = SortArgs::from(c);
    sort_outputs(c, a.dim, std::nullopt, a.descending, slices);
  }
}

}  // namespace ember
