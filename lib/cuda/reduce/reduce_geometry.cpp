// Host side of the CUDA reductions (reduce_geometry.h).
#include "cuda/reduce/reduce_geometry.h"

#include <vector>

namespace ember::cuda::reduce {

ReduceInput prepare_reduce(const Tensor& self, const DimVector& dims) {
  const int64_t nd = self.dim();
  std::vector<bool> reduced(static_cast<size_t>(nd), false);
  for (int64_t d : dims)
    if (d >= 0 && d < nd) reduced[static_cast<size_t>(d)] = true;
  // The dims of size > 1, and whether the reduced ones among them form one run.
  int64_t first = -1, last = -1, runs_broken = 0;
  for (int64_t d = 0; d < nd; ++d) {
    if (self.size(d) == 1 || !reduced[static_cast<size_t>(d)]) continue;
    if (first < 0) first = d;
    last = d;
  }
  for (int64_t d = first; first >= 0 && d <= last; ++d)
    if (!reduced[static_cast<size_t>(d)] && self.size(d) != 1) runs_broken = 1;
  ReduceInput in;
  in.shape = {1, 1, 1};
  if (first < 0) {  // nothing of size > 1 is reduced: R = 1
    in.x = self.contiguous();
    in.shape.outer = self.numel();
    return in;
  }
  if (!runs_broken) {
    in.x = self.contiguous();
    for (int64_t d = 0; d < nd; ++d)
      (d < first ? in.shape.outer : d <= last ? in.shape.R : in.shape.inner) *= self.size(d);
    return in;
  }
  std::vector<int64_t> order;
  for (int64_t d = 0; d < nd; ++d)
    if (!reduced[static_cast<size_t>(d)]) {
      order.push_back(d);
      in.shape.outer *= self.size(d);
    }
  for (int64_t d = 0; d < nd; ++d)
    if (reduced[static_cast<size_t>(d)]) {
      order.push_back(d);
      in.shape.R *= self.size(d);
    }
  in.x = self.permute(IntList(order)).contiguous();
  return in;
}

ReduceShape along_dim(const Tensor& self, int64_t dim) {
  ReduceShape s{1, 1, 1};
  for (int64_t d = 0; d < self.dim(); ++d) (d < dim ? s.outer : d == dim ? s.R : s.inner) *= self.size(d);
  return s;
}

}  // namespace ember::cuda::reduce
