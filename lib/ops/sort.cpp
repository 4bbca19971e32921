// Sorting: sort, topk, unique (ops) and argsort (a composite).
// Note [NaN order] (lib/cpu/sort.cpp): NaN compares larger than every number.
#include "dispatch/args/shape_index.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/shape_index.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"

namespace ember {

// Ties keep their order whatever `stable` says (the kernel breaks ties by index).
std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending, bool stable) {
  const int64_t d = wrap_dim(dim, self.dim(), "sort");
  OpCall call(opid::sort, {self}, SortArgs{.dim = d, .descending = descending, .stable = stable}.attrs());
  dispatch(call);
  return {call.outputs[0], call.outputs[1]};
}

Tensor argsort(const Tensor& self, int64_t dim, bool descending, bool stable) {
  return std::get<1>(sort(self, dim, descending, stable));
}

std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest,
                                bool sorted) {
  const int64_t d = wrap_dim(dim, self.dim(), "topk");
  const int64_t size = self.dim() ? self.sizes()[d] : 1;
  EMBER_CHECK(k >= 0 && k <= size, "topk: selected index k out of range (k = ", k,
              ", the size of dimension ", d, " is ", size, ")");
  OpCall call(opid::topk, {self},
              TopkArgs{.k = k, .dim = d, .largest = largest, .sorted = sorted}.attrs());
  dispatch(call);
  return {call.outputs[0], call.outputs[1]};
}

std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& self, bool sorted, bool return_inverse,
                                          bool return_counts, std::optional<int64_t> dim) {
  (void)sorted;  // values always come out sorted
  std::optional<int64_t> wrapped;  // dim, wrapped (None when not given)
  if (dim) {
    EMBER_CHECK_INDEX(self.dim() > 0, "unique: dim specified as ", *dim,
                      " but tensor has no dimensions");
    const int64_t d = wrap_dim(*dim, self.dim(), "unique");
    for (int64_t k = 0; k < self.dim(); ++k)
      EMBER_CHECK(k == d || self.sizes()[k] > 0 || self.sizes()[d] == 0, "unique: there are 0 "
                  "sized dimensions, and they aren't selected, so unique cannot be applied (",
                  describe(self), ", dim ", d, ")");
    wrapped = d;
  }
  OpCall call(opid::unique, {self}, UniqueArgs{.dim = wrapped}.attrs());
  dispatch(call);
  Tensor none = empty(IntList{0}, TensorOptions(kInt64).device(self.device()));
  return {call.outputs[0], return_inverse ? call.outputs[1] : none,
          return_counts ? call.outputs[2] : none};
}

// ---- methods ------------------------------------------------------------------------------

std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending, bool stable) const {
  return ember::sort(*this, dim, descending, stable);
}
Tensor Tensor::argsort(int64_t dim, bool descending, bool stable) const {
  return ember::argsort(*this, dim, descending, stable);
}
std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  return ember::topk(*this, k, dim, largest, sorted);
}

}  // namespace ember
