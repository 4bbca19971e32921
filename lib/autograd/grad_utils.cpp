#include "autograd/grad_utils.h"

#include "ember/ops/reduce.h"
#include "ember/ops/views.h"

namespace ember::autograd {

bool is_expandable_to(const DimVector& from, const DimVector& to) {
  if (from.size() > to.size()) return false;
  size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[lead + i]) return false;
  return true;
}

Tensor sum_to(const Tensor& grad, const DimVector& shape) {
  if (grad.sizes() == shape) return grad;
  size_t lead = grad.dim() - shape.size();
  IntList dims;
  for (size_t d = 0; d < static_cast<size_t>(grad.dim()); ++d)
    if (d < lead || (shape[d - lead] == 1 && grad.sizes()[d] != 1)) dims.push_back(static_cast<int64_t>(d));
  Tensor r = dims.empty() ? grad : sum(grad, dims, /*keepdim=*/true);
  return reshape(r, IntList(shape.begin(), shape.end()));
}

}  // namespace ember::autograd
