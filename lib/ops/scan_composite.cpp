// cummax, cummin and logcumsumexp as composites: a Hillis-Steele scan, log2(n) steps of
// "combine each element with the one 2^k before it", each step a few elementwise ops on
// the whole tensor. The combine rules are associative, so the result is the sequential
// scan's. cummax/cummin scan (value, index) pairs and read the values with gather, so
// the gradient goes to the selected element as in PyTorch; logcumsumexp scans
// log(exp(a) + exp(b)), which never overflows.
#include <cmath>

#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/statistics.h"
#include "ember/ops/views.h"
#include "ops/reduce_args.h"

namespace ember {

namespace {

// Runs the scan along d: combine(earlier, later) for every element with one `shift` before it.
template <typename Combine>
void scan_steps(TensorList& state, int64_t d, Combine combine) {
  int64_t n = state[0].size(d);
  for (int64_t shift = 1; shift < n; shift *= 2) {
    TensorList earlier, later;
    for (const Tensor& t : state) {
      earlier.push_back(narrow(t, d, 0, n - shift));
      later.push_back(narrow(t, d, shift, n - shift));
    }
    TensorList tail = combine(earlier, later);
    for (size_t i = 0; i < state.size(); ++i) state[i] = cat({narrow(state[i], d, 0, shift), tail[i]}, d);
  }
}

std::tuple<Tensor, Tensor> cum_extremum(const Tensor& self, int64_t dim, bool is_max, const char* op) {
  int64_t d = reduce::normalize_dim(self, dim, op);
  Tensor x = self.dim() == 0 ? reshape(self, {1}) : self;
  IntList shape(x.dim(), 1);
  shape[d] = x.size(d);
  Tensor idx = expand(reshape(arange(Scalar(x.size(d)), TensorOptions(DType::Int64).device(x.device())), shape),
                      IntList(x.sizes().begin(), x.sizes().end()));
  TensorList state{detach(x), idx};
  // The later element wins when it is NaN, or when neither is NaN and it is >= (<=) the earlier.
  scan_steps(state, d, [is_max](const TensorList& a, const TensorList& b) {
    Tensor later_wins = logical_or(isnan(b[0]), logical_and(logical_not(isnan(a[0])),
                                                            is_max ? ge(b[0], a[0]) : le(b[0], a[0])));
    return TensorList{where(later_wins, b[0], a[0]), where(later_wins, b[1], a[1])};
  });
  Tensor indices = contiguous(state[1]);
  Tensor values = gather(x, d, indices);
  if (self.dim() == 0) return {reshape(values, {}), reshape(indices, {})};
  return {values, indices};
}

}  // namespace

std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) { return cum_extremum(self, dim, true, "cummax"); }
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) { return cum_extremum(self, dim, false, "cummin"); }

Tensor logcumsumexp(const Tensor& self, int64_t dim) {
  EMBER_CHECK_AS(NotImplementedError, is_floating(self.dtype()), "\"logcumsumexp_out_cpu\" not implemented for '",
                 scalar_type_name(self.dtype()), "'");
  int64_t d = reduce::normalize_dim(self, dim, "logcumsumexp");
  Tensor x = self.dim() == 0 ? reshape(self, {1}) : self;
  TensorList state{x};
  // log(e^a + e^b) = max(a, b) + log1p(e^-|a - b|); equal arguments (infinities included)
  // give max + log 2 without forming inf - inf.
  scan_steps(state, d, [](const TensorList& a, const TensorList& b) {
    Tensor gap = where(eq(a[0], b[0]), Scalar(0), sub(a[0], b[0]));
    return TensorList{add(maximum(a[0], b[0]), log1p(exp(neg(abs(gap)))))};
  });
  return self.dim() == 0 ? reshape(state[0], {}) : state[0];
}

}  // namespace ember
