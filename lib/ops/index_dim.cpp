// Ops along a dim through an index: gather, scatter (tensor or value),
// scatter_add, index_select, index_add, index_copy, index_fill, take.
// The out-of-place forms clone self and run the in-place op.
//
// Like PyTorch, a 0-dim self, index or source counts as 1-d here; the kernels
// see 1-d views of them.
#include <string>

#include "core/scalar_range.h"
#include "dispatch/args/shape_index.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/shape_index.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"

namespace ember {

namespace {

Tensor at_least_1d(const Tensor& t) { return t.dim() ? t : reshape(t, {1}); }
int64_t nonempty_dim(const Tensor& t) { return std::max<int64_t>(t.dim(), 1); }

// Integer indices as int64 (int32 is accepted and converted, as in PyTorch).
Tensor long_index(const Tensor& index, const char* op) {
  EMBER_CHECK(index.defined(), op, "(): index is undefined");
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32, op,
              "(): Expected dtype int32/int64 for index, got ", dtype_name(index.dtype()));
  return index.dtype() == kInt64 ? index : index.to(kInt64);
}

// A 1-d (or 0-dim) index for the index_* ops.
Tensor vector_index(const Tensor& index, const char* op) {
  // The dims first, then the dtype: PyTorch's order (a 2-d float index is an IndexError).
  EMBER_CHECK(index.defined(), op, "(): index is undefined");
  EMBER_CHECK_INDEX(index.dim() <= 1, op, "(): Index is supposed to be a vector, got ", describe(index));
  Tensor idx = long_index(index, op);
  return at_least_1d(idx);
}

void check_same_dims(const Tensor& a, const Tensor& b, const char* op, const char* what) {
  EMBER_CHECK(nonempty_dim(a) == nonempty_dim(b), op, "(): Index tensor must have the same number "
              "of dimensions as ", what, " tensor (", shape_str(a.sizes()), " vs ",
              shape_str(b.sizes()), ")");
}

// scatter's shape rules: index no larger than src everywhere, and no larger
// than self apart from dim.
void check_scatter_shapes(const Tensor& self, const Tensor& index, const Tensor* src, int64_t d,
                          const char* op) {
  check_same_dims(index, self, op, "self");
  if (src) check_same_dims(index, *src, op, "src");
  if (index.numel() == 0) return;
  Tensor s = at_least_1d(self), i = at_least_1d(index);
  for (int64_t k = 0; k < i.dim(); ++k) {
    bool ok = (k == d || i.sizes()[k] <= s.sizes()[k]) &&
              (!src || i.sizes()[k] <= at_least_1d(*src).sizes()[k]);
    EMBER_CHECK(ok, op, "(): Expected index ", shape_str(index.sizes()), " to be smaller than self ",
                shape_str(self.sizes()), " apart from dimension ", d,
                src ? detail::str(" and to be smaller size than src ", shape_str(src->sizes()))
                    : std::string());
  }
}

std::string check_reduce(const std::string& reduce) {
  EMBER_CHECK(reduce.empty() || reduce == "add" || reduce == "multiply", "scatter: reduce "
              "argument must be either add or multiply, got '", reduce, "'");
  return reduce;
}

// index_add_ / index_copy_: source has self's shape apart from dim, index.numel() along it.
// A wrong count or number of dims is a RuntimeError for index_add_ and an IndexError for
// index_copy_, as torch.
template <typename CountError>
void check_index_source(const Tensor& self, int64_t d, const Tensor& idx, const Tensor& source,
                        const char* op) {
  EMBER_CHECK(self.dtype() == source.dtype(), op, "(): self (", dtype_name(self.dtype()),
              ") and source (", dtype_name(source.dtype()), ") must have the same scalar type");
  Tensor s = at_least_1d(self), src = at_least_1d(source);
  // A different number of dims is in the same class as a wrong count (torch's order).
  if (s.dim() != src.dim())
    throw CountError(detail::str(op, "(): When source and destination are not scalars, their "
                                 "dimensionality must match. Source dimensionality (", src.dim(),
                                 "), destination dimensionality (", s.dim(), ")"));
  bool same = true;
  for (int64_t k = 0; same && k < s.dim(); ++k) same = k == d || s.sizes()[k] == src.sizes()[k];
  EMBER_CHECK(same, op, "(): source tensor shape must match self tensor shape, excluding the "
              "specified dimension. Got self.shape = ", shape_str(self.sizes()),
              " source.shape = ", shape_str(source.sizes()));
  if (idx.numel() != src.sizes()[d])
    throw CountError(detail::str(op, "(): Number of indices (", idx.numel(),
                                 ") should be equal to source.size(dim) (", src.sizes()[d], "), for dim: ", d));
}

// Runs an in-place op whose inputs[0] is at_least_1d(self). A 0-dim self is
// written through a 1-d copy and copied back: autograd does not support an
// in-place write to a view of a tensor that requires grad.
// Every index within dim d of self ([0, size), or [-size, size) with negatives_wrap),
// checked before anything is written: the kernels find a bad index only as they write,
// which would leave the writes before it in self.
template <typename RangeError>
void check_indices_in_range(const Tensor& self, int64_t d, const Tensor& idx, bool negatives_wrap,
                            const char* op) {
  if (idx.numel() == 0) return;
  const int64_t size = at_least_1d(self).size(d);
  Tensor bad = logical_or(lt(idx, negatives_wrap ? -size : 0), ge(idx, size));
  if (!any(bad).item<bool>()) return;
  const int64_t first = masked_select(idx, bad).flatten().select(0, 0).item<int64_t>();
  throw RangeError(detail::str(op, ": index ", first, " is out of bounds for dimension ", d,
                               " with size ", size));
}

void dispatch_inplace(OpCall& call, Tensor& self) {
  if (self.dim() == 0) call.inputs[0] = clone(call.inputs[0]);
  call.outputs.push_back(call.inputs[0]);
  dispatch(call);
  if (self.dim() == 0) copy_(self, reshape(call.inputs[0], {}));
}

}  // namespace

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) {
  Tensor idx = long_index(index, "gather");
  const int64_t d = wrap_dim(dim, self.dim(), "gather");
  check_same_dims(idx, self, "gather", "input");
  Tensor s = at_least_1d(self), i = at_least_1d(idx);
  for (int64_t k = 0; k < i.dim() && idx.numel() > 0; ++k)
    EMBER_CHECK(k == d || i.sizes()[k] <= s.sizes()[k], "gather(): Size does not match at "
                "dimension ", k, " expected index ", shape_str(idx.sizes()),
                " to be no larger than self ", shape_str(self.sizes()), " apart from dimension ", d);
  OpCall call(opid::gather, {s, i}, GatherArgs{.dim = d}.attrs());
  Tensor out = dispatch_one(call);
  return idx.dim() ? out : reshape(out, {});
}

Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                 const std::string& reduce) {
  Tensor idx = long_index(index, "scatter");
  const int64_t d = wrap_dim(dim, self.dim(), "scatter");
  EMBER_CHECK(self.dtype() == src.dtype(), "scatter(): Expected self.dtype to be equal to "
              "src.dtype (got ", dtype_name(self.dtype()), " and ", dtype_name(src.dtype()), ")");
  check_scatter_shapes(self, idx, &src, d, "scatter");
  check_indices_in_range<Error>(self, d, idx, false, "scatter_");
  OpCall call(opid::scatter_, {at_least_1d(self), at_least_1d(idx), at_least_1d(src)},
              ScatterArgs{.dim = d, .reduce = check_reduce(reduce)}.attrs());
  dispatch_inplace(call, self);
  return self;
}

Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                 const std::string& reduce) {
  Tensor idx = long_index(index, "scatter");
  const int64_t d = wrap_dim(dim, self.dim(), "scatter");
  check_scatter_shapes(self, idx, nullptr, d, "scatter");
  check_scalar_fits("scatter", value, self.dtype());
  check_indices_in_range<Error>(self, d, idx, false, "scatter_");
  OpCall call(opid::scatter_value_, {at_least_1d(self), at_least_1d(idx)},
              ScatterValueArgs{.dim = d, .value = value, .reduce = check_reduce(reduce)}.attrs());
  dispatch_inplace(call, self);
  return self;
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               const std::string& reduce) {
  Tensor out = clone(self);
  return scatter_(out, dim, index, src, reduce);
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
               const std::string& reduce) {
  Tensor out = clone(self);
  return scatter_(out, dim, index, value, reduce);
}

Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor idx = long_index(index, "scatter_add");
  const int64_t d = wrap_dim(dim, self.dim(), "scatter_add");
  EMBER_CHECK(self.dtype() == src.dtype(), "scatter_add(): Expected self.dtype to be equal to "
              "src.dtype (got ", dtype_name(self.dtype()), " and ", dtype_name(src.dtype()), ")");
  check_scatter_shapes(self, idx, &src, d, "scatter_add");
  check_indices_in_range<Error>(self, d, idx, false, "scatter_add_");
  OpCall call(opid::scatter_add_, {at_least_1d(self), at_least_1d(idx), at_least_1d(src)},
              ScatterAddArgs{.dim = d}.attrs());
  dispatch_inplace(call, self);
  return self;
}

Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = clone(self);
  return scatter_add_(out, dim, index, src);
}

// scatter_reduce_: the row reduces with sum, prod, amax or amin; "mean" is the sum
// divided by how many values met at each position (self's counting as one when
// included), floor-divided for integers, as PyTorch does.
Tensor& scatter_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                        const std::string& reduce_name, bool include_self) {
  // PyTorch also takes "max" and "min" (its older names of amax and amin).
  const std::string reduce = reduce_name == "max" ? "amax" : reduce_name == "min" ? "amin" : reduce_name;
  EMBER_CHECK(reduce == "sum" || reduce == "prod" || reduce == "mean" || reduce == "amax" ||
                  reduce == "amin",
              "reduce argument must be either sum, prod, mean, amax or amin, got ", reduce);
  Tensor idx = long_index(index, "scatter_reduce");
  const int64_t d = wrap_dim(dim, self.dim(), "scatter_reduce");
  EMBER_CHECK(self.dtype() == src.dtype(), "scatter_reduce(): Expected self.dtype to be equal to "
              "src.dtype (got ", dtype_name(self.dtype()), " and ", dtype_name(src.dtype()), ")");
  check_scatter_shapes(self, idx, &src, d, "scatter_reduce");
  check_indices_in_range<Error>(self, d, idx, false, "scatter_reduce_");
  const bool mean = reduce == "mean";
  Tensor counts;
  if (mean && idx.numel() > 0) {
    counts = include_self ? ones_like(self) : zeros_like(self);
    scatter_add_(counts, d, idx, ones_like(idx, TensorOptions(self.dtype())));
  }
  OpCall call(opid::scatter_reduce_, {at_least_1d(self), at_least_1d(idx), at_least_1d(src)},
              ScatterReduceArgs{.dim = d, .reduce = mean ? "sum" : reduce, .include_self = include_self}.attrs());
  dispatch_inplace(call, self);
  if (counts.defined()) {
    counts = clamp_min(counts, 1);  // positions nothing reached keep their value
    if (is_floating(self.dtype())) div_(self, counts);
    else div_(self, counts, "floor");
  }
  return self;
}

Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self) {
  Tensor out = clone(self);
  return scatter_reduce_(out, dim, index, src, reduce, include_self);
}

// index_reduce_: scatter_reduce_ with the 1-d index spread over source's other dims.
Tensor& index_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                      const std::string& reduce, bool include_self) {
  EMBER_CHECK(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin",
              "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got ",
              reduce, ".");
  Tensor idx = vector_index(index, "index_reduce_");
  const int64_t d = wrap_dim(dim, self.dim(), "index_reduce_");
  check_index_source<IndexError>(self, d, idx, source, "index_reduce_");
  check_indices_in_range<IndexError>(self, d, idx, false, "index_reduce_");
  Tensor src = at_least_1d(source);
  IntList shape(static_cast<size_t>(src.dim()), 1);
  shape[d] = idx.numel();
  Tensor spread = expand(reshape(idx, shape), IntList(src.sizes().begin(), src.sizes().end()));
  if (self.dim() == 0) {  // a 0-dim self is reduced through a 1-d copy
    Tensor flat = reshape(self, {1}).clone();
    scatter_reduce_(flat, d, spread, src, reduce, include_self);
    copy_(self, reshape(flat, {}));
    return self;
  }
  return scatter_reduce_(self, d, spread, src, reduce, include_self);
}

Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    const std::string& reduce, bool include_self) {
  Tensor out = clone(self);
  return index_reduce_(out, dim, index, source, reduce, include_self);
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  Tensor idx = vector_index(index, "index_select");
  const int64_t d = wrap_dim(dim, self.dim(), "index_select");
  if (self.dim() == 0)
    EMBER_CHECK_INDEX(idx.numel() == 1, "index_select(): Index to scalar can have only 1 value, "
                      "got ", idx.numel(), " value(s)");
  OpCall call(opid::index_select, {at_least_1d(self), idx}, IndexSelectArgs{.dim = d}.attrs());
  Tensor out = dispatch_one(call);
  return self.dim() ? out : reshape(out, {});
}

Tensor& index_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                   const Scalar& alpha) {
  Tensor idx = vector_index(index, "index_add_");
  const int64_t d = wrap_dim(dim, self.dim(), "index_add_");
  check_index_source<Error>(self, d, idx, source, "index_add_");
  // PyTorch's kinds: an IndexError into a vector (its index_select-like path), else a
  // RuntimeError.
  if (self.dim() <= 1)
    check_indices_in_range<IndexError>(self, d, idx, false, "index_add_");
  else
    check_indices_in_range<Error>(self, d, idx, false, "index_add_");
  OpCall call(opid::index_add_, {at_least_1d(self), idx, at_least_1d(source)},
              IndexAddArgs{.dim = d, .alpha = alpha}.attrs());
  dispatch_inplace(call, self);
  return self;
}

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha) {
  Tensor out = clone(self);
  return index_add_(out, dim, index, source, alpha);
}

Tensor& index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  Tensor idx = vector_index(index, "index_copy_");
  const int64_t d = wrap_dim(dim, self.dim(), "index_copy_");
  check_index_source<IndexError>(self, d, idx, source, "index_copy_");
  check_indices_in_range<IndexError>(self, d, idx, false, "index_copy_");
  OpCall call(opid::index_copy_, {at_least_1d(self), idx, at_least_1d(source)},
              IndexCopyArgs{.dim = d}.attrs());
  dispatch_inplace(call, self);
  return self;
}

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  Tensor out = clone(self);
  return index_copy_(out, dim, index, source);
}

Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  // torch's index_fill_ takes int64 indices only (IndexError) of at most one dim (RuntimeError).
  EMBER_CHECK(index.defined(), "index_fill_(): index is undefined");
  EMBER_CHECK_INDEX(index.dtype() == kInt64, "index_fill_(): Expected dtype int64 for index, got ",
                    dtype_name(index.dtype()));
  EMBER_CHECK(index.dim() <= 1, "index_fill_(): Index has to be a vector/scalar, got ", describe(index));
  Tensor idx = vector_index(index, "index_fill_");
  const int64_t d = wrap_dim(dim, self.dim(), "index_fill_");
  check_scalar_fits("index_fill_", value, self.dtype());
  check_indices_in_range<IndexError>(self, d, idx, true, "index_fill_");
  OpCall call(opid::index_fill_, {at_least_1d(self), idx}, IndexFillArgs{.dim = d, .value = value}.attrs());
  dispatch_inplace(call, self);
  return self;
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor out = clone(self);
  return index_fill_(out, dim, index, value);
}

Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  EMBER_CHECK(value.defined() && value.dim() == 0, "index_fill_(): only supports a 0-dimensional "
              "value tensor, got ", value.defined() ? value.dim() : -1, " dimension(s)");
  if (!value.requires_grad()) return index_fill_(self, dim, index, value.item());
  // A value that requires grad gets the gradient of the slices it filled: a
  // where (which has a derivative row) over those slices, copied into self.
  Tensor filled = zeros(IntList(self.sizes().begin(), self.sizes().end()),
                        TensorOptions(kBool).device(self.device()));
  index_fill_(filled, dim, index, Scalar(true));
  return copy_(self, where(filled, value.to(self.dtype()), self));
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  Tensor out = clone(self);
  return index_fill_(out, dim, index, value);
}

Tensor take(const Tensor& self, const Tensor& index) {
  EMBER_CHECK(index.defined() && index.dtype() == kInt64, "take(): Expected a long tensor for "
              "index, but got ", index.defined() ? dtype_name(index.dtype()) : "undefined");
  OpCall call(opid::take, {self, index});
  return dispatch_one(call);
}

// ---- methods ------------------------------------------------------------------------------

Tensor Tensor::gather(int64_t dim, const Tensor& index) const { return ember::gather(*this, dim, index); }
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter(*this, dim, index, src);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::scatter(*this, dim, index, value);
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) {
  ember::scatter_(*this, dim, index, src);
  return *this;
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) {
  ember::scatter_(*this, dim, index, value);
  return *this;
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter_add(*this, dim, index, src);
}
Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) {
  ember::scatter_add_(*this, dim, index, src);
  return *this;
}
Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return ember::index_select(*this, dim, index);
}
Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) const {
  return ember::index_add(*this, dim, index, source, alpha);
}
Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  ember::index_add_(*this, dim, index, source, alpha);
  return *this;
}
Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  return ember::index_copy(*this, dim, index, source);
}
Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) {
  ember::index_copy_(*this, dim, index, source);
  return *this;
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::index_fill(*this, dim, index, value);
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Scalar& value) {
  ember::index_fill_(*this, dim, index, value);
  return *this;
}
Tensor Tensor::take(const Tensor& index) const { return ember::take(*this, index); }

}  // namespace ember
