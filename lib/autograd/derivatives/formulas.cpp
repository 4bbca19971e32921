#include "autograd/derivatives/formulas.h"

#include <algorithm>

#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/views.h"

namespace ember::autograd {

Tensor expand_reduced(const Tensor& grad, const DimVector& input_sizes, const DimVector& dims,
                      bool keepdim) {
  Tensor g = grad;
  int64_t nd = static_cast<int64_t>(input_sizes.size());
  if (!keepdim && nd > 0) {
    std::vector<int64_t> wrapped;
    if (dims.empty())
      for (int64_t d = 0; d < nd; ++d) wrapped.push_back(d);
    else
      for (int64_t d : dims) wrapped.push_back(wrap_dim(d, nd, "sum_backward"));
    std::sort(wrapped.begin(), wrapped.end());
    if (static_cast<int64_t>(wrapped.size()) == nd) g = reshape(g, IntList(nd, 1));
    else
      for (int64_t d : wrapped) g = unsqueeze(g, d);
  }
  return expand(g, IntList(input_sizes.begin(), input_sizes.end()));
}

int64_t reduced_count(const DimVector& sizes, const DimVector& dims) {
  int64_t n = 1, nd = static_cast<int64_t>(sizes.size());
  if (dims.empty()) {
    for (int64_t s : sizes) n *= s;
  } else {
    for (int64_t d : dims) n *= sizes[wrap_dim(d, nd, "mean_backward")];
  }
  return n;
}

IntList reduced_dims(const DimVector& dims) { return IntList(dims.begin(), dims.end()); }

Tensor share_evenly(const Tensor& hit, const DimVector& dims, DType dtype) {
  Tensor h = hit.to(dtype);
  return hit.dim() ? h / sum(h, reduced_dims(dims), true) : h;
}

Tensor div_or_zero(const Tensor& x, const Tensor& d) {
  Tensor zero = eq(d, Scalar(0));
  return where(zero, Scalar(0), x / where(zero, Scalar(1), d));
}

}  // namespace ember::autograd
