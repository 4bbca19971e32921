// Order statistics: median, nanmedian, kthvalue, mode, quantile, nanquantile.
// Composites: a stable sort finds the position of the wanted element in each row,
// and gather reads its value from the input, so the gradient goes to the selected
// element (PyTorch's value_selecting_reduction_backward). NaN sorts last.
#include <cmath>
#include <limits>

#include "ember/autograd.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/statistics.h"
#include "ember/ops/views.h"
#include "ops/reduce_args.h"
#include "dispatch/op_ids/reduce.h"

namespace ember {

namespace {

// A row-wise selection: the input with at least one dim, the wrapped dim, and
// whether the input was 0-dim (its results are 0-dim whatever keepdim says).
struct Rows {
  Tensor x;
  int64_t dim;
  bool scalar;
};

Rows rows_of(const Tensor& self, int64_t dim, const char* op) {
  int64_t d = reduce::normalize_dim(self, dim, op);
  if (self.dim() == 0) return {reshape(self, {1}), 0, true};
  EMBER_CHECK_INDEX(self.size(d) != 0, op, "(): Expected reduction dim ", d, " to have non-zero size.");
  return {self, d, false};
}

// The values and indices of self at sorted position `pos` (int64, size 1 along the dim)
// of each row, where `order` is the row's stable ascending argsort.
std::tuple<Tensor, Tensor> pick(const Rows& r, const Tensor& order, const Tensor& pos, bool keepdim) {
  Tensor idx = gather(order, r.dim, pos);
  Tensor val = gather(r.x, r.dim, idx);
  if (r.scalar) return {reshape(val, {}), reshape(idx, {})};
  if (!keepdim) return {squeeze(val, r.dim), squeeze(idx, r.dim)};
  return {val, idx};
}

std::tuple<Tensor, Tensor> median_along(const Tensor& self, int64_t dim, bool keepdim, bool skip_nan,
                                        const char* op) {
  Rows r = rows_of(self, dim, op);
  Tensor order = argsort(r.x, r.dim, false, /*stable=*/true);
  int64_t n = r.x.size(r.dim);
  Tensor nans = sum(isnan(r.x), IntList{r.dim}, true);  // int64, size 1 along dim
  Tensor pos;
  if (skip_nan) {  // the lower median of the non-NaN values; 0 when there are none
    pos = clamp_min(div(Scalar(n - 1) - nans, Scalar(2), std::string("floor")), Scalar(0));
  } else {  // the first NaN (stable sort keeps NaNs in input order) if any, else the lower median
    pos = where(gt(nans, Scalar(0)), Scalar(n) - nans, full_like(nans, Scalar((n - 1) / 2)));
  }
  return pick(r, order, pos, keepdim);
}

// median() / nanmedian() of every element: PyTorch shares the gradient evenly among
// the elements equal to the result. amax over those elements has that gradient and
// the same value.
Tensor share_among_equal(const Tensor& self, const Tensor& value) {
  if (!self.requires_grad() || !is_grad_enabled()) return value;
  Tensor v = detach(value);
  Tensor hit = logical_or(eq(self, v), logical_and(isnan(self), isnan(v)));
  return amax(where(hit, self, Scalar(-std::numeric_limits<double>::infinity())));
}

Tensor median_all(const Tensor& self, bool skip_nan, const char* op) {
  if (self.numel() == 0) return full({}, Scalar(std::nan("")), TensorOptions(self.dtype()).device(self.device()));
  Tensor flat = reshape(self, {-1});
  Tensor v = std::get<0>(median_along(flat, 0, false, skip_nan, op));
  return share_among_equal(self, v);
}

}  // namespace

Tensor median(const Tensor& self) { return median_all(self, false, "median"); }
std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim) {
  return median_along(self, dim, keepdim, false, "median");
}
Tensor nanmedian(const Tensor& self) { return median_all(self, true, "nanmedian"); }
std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim) {
  return median_along(self, dim, keepdim, true, "median");  // PyTorch's messages say median()
}

std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  EMBER_CHECK_AS(NotImplementedError, self.dtype() != DType::Bool, "\"kthvalue_cpu\" not implemented for 'Bool'");
  Rows r = rows_of(self, dim, "kthvalue");
  int64_t n = r.x.size(r.dim);
  EMBER_CHECK(k >= 1 && k <= n, "kthvalue(): selected number k out of range for dimension ", r.dim);
  Tensor order = argsort(r.x, r.dim, false, /*stable=*/true);
  DimVector ps = r.x.sizes();
  ps[r.dim] = 1;
  Tensor pos = full(IntList(ps.begin(), ps.end()), Scalar(k - 1), TensorOptions(DType::Int64).device(self.device()));
  return pick(r, order, pos, keepdim);
}

std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim) {
  Rows r = rows_of(self, dim, "mode");
  int64_t d = r.dim, n = r.x.size(d);
  auto [s, order] = sort(detach(r.x), d, false, /*stable=*/true);
  // Runs of equal values in the sorted row: run ids, then each position's run length.
  Tensor same = eq(narrow(s, d, 1, n - 1), narrow(s, d, 0, n - 1));
  Tensor first = ones_like(narrow(s, d, 0, 1)).to(DType::Bool);  // every row starts a run
  Tensor run = cumsum(cat({first, logical_not(same)}, d), d) - Scalar(1);
  Tensor counts = scatter_add(zeros_like(run), d, run, ones_like(run));
  Tensor length = gather(counts, d, run);
  // The first longest run holds the smallest most frequent value; PyTorch returns the
  // index of its last occurrence, which the stable sort puts at the run's end.
  Tensor start = argmax(length, d, true);
  Tensor pos = start + gather(length, d, start) - Scalar(1);
  return pick(r, order, pos, keepdim);
}

// ---- quantile -------------------------------------------------------------------------

namespace {

Tensor quantile_impl(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                     const std::string& interpolation, bool skip_nan, const char* op) {
  EMBER_CHECK(self.dtype() == DType::Float32 || self.dtype() == DType::Float64, op,
              "() input tensor must be either float or double dtype");
  EMBER_CHECK(q.dim() <= 1, op, "() q must be a scalar or 1D tensor");
  EMBER_CHECK(q.dtype() == self.dtype(), op, "() q tensor must be same dtype as the input tensor");
  EMBER_CHECK(self.numel() > 0, op, "() input tensor must be non-empty");
  EMBER_CHECK(interpolation == "linear" || interpolation == "lower" || interpolation == "higher" ||
                  interpolation == "midpoint" || interpolation == "nearest",
              op, "() interpolation must be one of linear, lower, higher, midpoint or nearest, but got ",
              interpolation);
  if (q.numel() > 0)
    EMBER_CHECK(all(logical_and(ge(q, Scalar(0)), le(q, Scalar(1)))).item<bool>(), op,
                "() q values must be in the range [0, 1]");
  Tensor x = self.dim() == 0 ? reshape(self, {1}) : self;
  int64_t d = dim ? reduce::normalize_dim(self, *dim, op) : 0;
  if (!dim) x = reshape(x, {-1});
  if (dim && self.dim() > 0) EMBER_CHECK_INDEX(x.size(d) != 0, op, "() input tensor must be non-empty");
  // Sorted rows along the last dim: [R..., n].
  Tensor s = std::get<0>(sort(movedim(x, d, -1), -1));
  int64_t n = s.size(-1);
  Tensor qb = reshape(q, {-1});  // [Q]
  int64_t nq = qb.size(0);
  DimVector qshape{nq};
  for (int64_t i = 0; i < s.dim(); ++i) qshape.push_back(1);
  qb = reshape(qb, IntList(qshape.begin(), qshape.end()));  // [Q, 1..., 1]
  Tensor ranks;
  if (skip_nan) {
    Tensor valid = sum(logical_not(isnan(s)), IntList{-1}, true).to(s.dtype());
    ranks = clamp_min(qb * (valid - Scalar(1)), Scalar(0));  // all NaN: rank 0, a NaN
  } else {
    Tensor has_nan = any(isnan(s), IntList{-1}, true);
    ranks = where(has_nan, Scalar(static_cast<double>(n - 1)), qb * Scalar(static_cast<double>(n - 1)));
  }
  if (interpolation == "lower") ranks = floor(ranks);
  else if (interpolation == "higher") ranks = ceil(ranks);
  else if (interpolation == "nearest") ranks = round(ranks);
  DimVector es{nq};
  for (int64_t v : s.sizes()) es.push_back(v);
  Tensor sx = expand(unsqueeze(s, 0), IntList(es.begin(), es.end()));  // [Q, R..., n]
  Tensor below = floor(ranks).to(DType::Int64);
  Tensor result = gather(sx, -1, below);
  if (interpolation == "linear" || interpolation == "midpoint") {
    Tensor weights = interpolation == "midpoint" ? full_like(ranks, Scalar(0.5)) : ranks - floor(ranks);
    Tensor above = ceil(ranks).to(DType::Int64);
    result = lerp(result, gather(sx, -1, above), weights);
  }
  result = squeeze(result, -1);  // [Q, R...]
  if (keepdim) {
    if (!dim) {
      DimVector ks{nq};
      for (int64_t i = 0; i < self.dim(); ++i) ks.push_back(1);
      result = reshape(result, IntList(ks.begin(), ks.end()));
    } else if (self.dim() > 0) {
      result = unsqueeze(result, d + 1);
    }
  }
  return q.dim() == 0 ? squeeze(result, 0) : result;
}

Tensor q_tensor(const Tensor& self, double q, const char* op) {
  EMBER_CHECK(q >= 0 && q <= 1, op, "() q must be in the range [0, 1] but got ", q);
  return scalar_tensor(Scalar(q), TensorOptions(self.dtype()).device(self.device()));
}

}  // namespace

Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                const std::string& interpolation) {
  return quantile_impl(self, q, dim, keepdim, interpolation, false, "quantile");
}
Tensor quantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                const std::string& interpolation) {
  return quantile_impl(self, q_tensor(self, q, "quantile"), dim, keepdim, interpolation, false, "quantile");
}
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   const std::string& interpolation) {
  return quantile_impl(self, q, dim, keepdim, interpolation, true, "nanquantile");
}
Tensor nanquantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                   const std::string& interpolation) {
  return quantile_impl(self, q_tensor(self, q, "nanquantile"), dim, keepdim, interpolation, true,
                       "nanquantile");
}

}  // namespace ember
