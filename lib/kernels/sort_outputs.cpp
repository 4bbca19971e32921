// The host side of sort and topk for every device (kernels/sort_outputs.h).
#include "kernels/sort_outputs.h"

#include "ember/ops/factories.h"
#include "kernels/restride.h"

namespace ember {

namespace {
// A 0-dim self is sorted as a 1-element 1-d tensor.
Tensor as_1d(const Tensor& t) { return t.dim() ? t : restride(t, {1}, {1}, t.storage_offset()); }
}  // namespace

void sort_or_topk(OpCall& c, bool topk, SortSlicesFn slices) {
  const Tensor& self = c.in(0);
  const int64_t dim = self.dim() ? c.attr(topk ? 1 : 0).to_int() : 0;
  const bool descending = c.attr(topk ? 2 : 1).to_bool();  // topk: largest
  const int64_t keep = topk ? c.attr(0).to_int() : as_1d(self).sizes()[dim];
  DimVector sizes = self.sizes();
  if (self.dim()) sizes[dim] = keep;
  TensorOptions opts = TensorOptions(self.dtype()).device(self.device());
  Tensor values = empty(sizes, opts);
  Tensor indices = empty(sizes, opts.dtype(kInt64));
  if (values.numel()) slices(as_1d(values), as_1d(indices), as_1d(self), dim, keep, descending);
  c.outputs.push_back(values);
  c.outputs.push_back(indices);
}

}  // namespace ember
