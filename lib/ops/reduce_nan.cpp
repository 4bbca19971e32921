// nansum and nanmean: sum and mean with NaN counted as zero / left out. Composites
// of where and sum, so the gradient is zero at the NaNs, as in PyTorch.
#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/statistics.h"
#include "ember/ops/views.h"

namespace ember {

Tensor nansum(const Tensor& self, const IntList& dim, bool keepdim, std::optional<DType> dtype) {
  if (!is_floating(self.dtype())) return sum(self, dim, keepdim, dtype);
  return sum(where(isnan(self), Scalar(0), self), dim, keepdim, dtype);
}

Tensor nanmean(const Tensor& self, const IntList& dim, bool keepdim, std::optional<DType> dtype) {
  EMBER_CHECK_AS(NotImplementedError, is_floating(self.dtype()),
                 "nanmean(): expected input to have floating point or complex dtype but got ",
                 scalar_type_name(self.dtype()));
  Tensor count = sum(logical_not(isnan(self)), dim, keepdim);
  Tensor total = nansum(self, dim, keepdim, dtype);
  return total / count.to(total.dtype());
}

}  // namespace ember
