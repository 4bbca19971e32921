// The tensor API round-out, part 2: scatters into views (diagonal/select/slice),
// index grids (tril/triu_indices, meshgrid, cartesian_prod, combinations),
// repeat_interleave, take_along_dim, masked_scatter, unique_consecutive, put.
// All composites of other ops, so autograd comes through them.
#include <algorithm>

#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/tensor_api.h"
#include "ember/ops/views.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember {

namespace {
// A copy of self with src written into view(copy): the scatter ops of views.
template <typename ViewFn>
Tensor scatter_into_view(const Tensor& self, const Tensor& src, const char* op, ViewFn view_of) {
  Tensor out = clone(self);
  Tensor slot = view_of(out);
  EMBER_CHECK(slot.sizes() == src.sizes(), op, ": expected src to have a size equal to the slice "
              "of self. src size = ", shape_str(src.sizes()), ", slice size = ",
              shape_str(slot.sizes()));
  slot.copy_(src);
  return out;
}
}  // namespace

Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1,
                        int64_t dim2) {
  return scatter_into_view(self, src, "diagonal_scatter",
                           [&](const Tensor& t) { return diagonal(t, offset, dim1, dim2); });
}

Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  return scatter_into_view(self, src, "select_scatter",
                           [&](const Tensor& t) { return select(t, dim, index); });
}

Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim,
                     std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  return scatter_into_view(self, src, "slice_scatter",
                           [&](const Tensor& t) { return slice(t, dim, start, end, step); });
}

namespace {
Tensor triangle_indices(int64_t row, int64_t col, int64_t offset, TensorOptions options,
                        bool lower, const char* op) {
  EMBER_CHECK(row >= 0, op, ": row must be non-negative, got", row);
  EMBER_CHECK(col >= 0, op, ": col must be non-negative, got", col);
  const DType dtype = options.dtype_or(kInt64);
  EMBER_CHECK_AS(NotImplementedError, dtype == kInt64 || dtype == kInt32, op, ": \"", op, "\" not implemented for '",
                   dtype_name(dtype), "'");
  std::vector<int64_t> rows, cols;
  for (int64_t i = 0; i < row; ++i)
    for (int64_t j = 0; j < col; ++j)
      if (lower ? j - i <= offset : j - i >= offset) {
        rows.push_back(i);
        cols.push_back(j);
      }
  const int64_t n = static_cast<int64_t>(rows.size());
  rows.insert(rows.end(), cols.begin(), cols.end());
  Tensor out = from_vector(rows, {2, n}).to(dtype);
  return options.device_.is_cpu() ? out : out.to(options.device_);
}
}  // namespace

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, TensorOptions options) {
  return triangle_indices(row, col, offset, options, true, "tril_indices");
}
Tensor triu_indices(int64_t row, int64_t col, int64_t offset, TensorOptions options) {
  return triangle_indices(row, col, offset, options, false, "triu_indices");
}

TensorList meshgrid(const TensorList& tensors, const std::string& indexing) {
  EMBER_CHECK(!tensors.empty(), "torch.meshgrid: Expected at least one tensor");
  EMBER_CHECK(indexing == "ij" || indexing == "xy", "torch.meshgrid: indexing must be one of "
              "\"xy\" or \"ij\", but received: ", indexing);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() <= 1, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                "got: ", t.dim(), "D tensor");
    EMBER_CHECK(t.dtype() == tensors[0].dtype(), "meshgrid expects all tensors to have the same "
                "dtype");
    EMBER_CHECK(t.device() == tensors[0].device(), "torch.meshgrid: Expected all tensors in the "
                "tensor list to have the same device.");
  }
  // "xy" is "ij" with the first two inputs (and so the first two outputs) swapped.
  const bool swap = indexing == "xy" && tensors.size() >= 2;
  TensorList in = tensors;
  if (swap) std::swap(in[0], in[1]);
  const int64_t n = static_cast<int64_t>(in.size());
  IntList shape;
  for (const Tensor& t : in) shape.push_back(t.numel());
  TensorList out;
  for (int64_t i = 0; i < n; ++i) {
    IntList view_shape(n, 1);
    view_shape[i] = -1;
    out.push_back(expand(view(in[i], view_shape), shape));
  }
  if (swap) std::swap(out[0], out[1]);
  return out;
}

Tensor cartesian_prod(const TensorList& tensors) {
  EMBER_CHECK(!tensors.empty(), "cartesian_prod expects a non-empty TensorList");
  for (const Tensor& t : tensors)
    EMBER_CHECK(t.dim() == 1, "Expect a 1D vector, but got shape ", shape_str(t.sizes()));
  if (tensors.size() == 1) return tensors[0];
  TensorList grids = meshgrid(tensors, "ij");
  for (Tensor& g : grids) g = reshape(g, {-1});
  return stack(grids, 1);
}

// PyTorch's formulation: an r-dim grid of the vector, masked to strictly (or weakly)
// increasing index tuples.
Tensor combinations(const Tensor& self, int64_t r, bool with_replacement) {
  EMBER_CHECK(self.dim() == 1, "Expect a 1D vector, but got shape ", shape_str(self.sizes()));
  EMBER_CHECK(r >= 0, "Expect a non-negative number, but got ", r);
  if (r == 0) return empty(IntList{0}, TensorOptions(self.dtype()).device(self.device()));
  const int64_t n = self.numel();
  TensorList grids = meshgrid(TensorList(r, self), "ij");
  TensorList idx = meshgrid(TensorList(r, arange(n, TensorOptions(kInt64).device(self.device()))), "ij");
  Tensor mask = ones(IntList(r, n), TensorOptions(kBool).device(self.device()));
  for (int64_t i = 0; i + 1 < r; ++i)
    mask = logical_and(mask, with_replacement ? le(idx[i], idx[i + 1]) : lt(idx[i], idx[i + 1]));
  for (Tensor& g : grids) g = masked_select(g, mask);
  return stack(grids, 1);
}

// ---- repeat_interleave -----------------------------------------------------------------------

Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  EMBER_CHECK_AS(NotImplementedError, repeats.dtype() == kInt64 || repeats.dtype() == kInt32,
                 "\"repeat_interleave_cpu\" not implemented for '", dtype_name(repeats.dtype()), "'");
  Tensor r = repeats.to(kCPU).to(kInt64).contiguous();
  const int64_t* p = r.data_ptr<int64_t>();
  std::vector<int64_t> out;
  for (int64_t i = 0; i < r.numel(); ++i) {
    EMBER_CHECK(p[i] >= 0, "repeats can not be negative");
    out.insert(out.end(), p[i], i);
  }
  const int64_t total = static_cast<int64_t>(out.size());
  EMBER_CHECK(!output_size || *output_size == total, "repeat_interleave: Invalid output_size, "
              "expected ", total, " but got ", output_size.value_or(0));
  Tensor t = from_vector(out, {total}, kInt64);
  return repeats.device().is_cpu() ? t : t.to(repeats.device());
}

Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  Tensor input = self;
  int64_t d = 0;
  if (dim) d = wrap_dim(*dim, self.dim(), "repeat_interleave");
  else input = reshape(self, {-1});
  EMBER_CHECK(repeats.dim() <= 1, "repeats must be 0-dim or 1-dim tensor");
  const int64_t size = input.dim() == 0 ? 1 : input.sizes()[d];
  Tensor reps = repeats;
  if (reps.dim() == 0 || reps.numel() == 1) reps = expand(reshape(reps, {1}), {size});
  EMBER_CHECK(reps.sizes()[0] == size, "repeats must have the same size as input along dim, but "
              "got repeats.size(0) = ", reps.sizes()[0], " and input.size(", d, ") = ", size);
  Tensor idx = repeat_interleave(reps, output_size);
  if (input.dim() == 0) input = reshape(input, {1});
  return index_select(input, d, idx.device() == input.device() ? idx : idx.to(input.device()));
}

Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats >= 0, "Repeats must be non-negative");
  Tensor input = dim ? self : reshape(self, {-1});
  if (input.dim() == 0) input = reshape(input, {1});
  const int64_t d = dim ? wrap_dim(*dim, input.dim(), "repeat_interleave") : 0;
  const int64_t total = input.sizes()[d] * repeats;
  EMBER_CHECK(!output_size || *output_size == total, "repeat_interleave: Invalid output_size, "
              "expected ", total, " but got ", output_size.value_or(0));
  // Each slice along d repeated in place: a new axis after d, expanded, then merged.
  IntList shape(input.sizes().begin(), input.sizes().end());
  shape.insert(shape.begin() + d + 1, repeats);
  Tensor r = expand(unsqueeze(input, d + 1), shape);
  return clone(flatten(r, d, d + 1));
}

// ---- gathers and scatters --------------------------------------------------------------------

Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  EMBER_CHECK(indices.dtype() == kInt64, "torch.take_along_dim(): dtype of indices should be "
              "Long but got ", dtype_name(indices.dtype()));
  if (!dim) return gather(reshape(self, {-1}), 0, reshape(indices, {-1}));
  const int64_t d = wrap_dim(*dim, self.dim(), "take_along_dim");
  EMBER_CHECK(self.dim() == indices.dim(), "torch.take_along_dim(): input and indices should have "
              "the same number of dimensions, but got ", self.dim(), " dimensions for input, and ",
              indices.dim(), " dimensions for indices");
  if (self.dim() == 0) return gather(self, d, indices);
  DimVector self_sizes = self.sizes(), index_sizes = indices.sizes();
  self_sizes[d] = indices.sizes()[d];
  DimVector ishape = broadcast_shapes(self_sizes, indices.sizes(), "take_along_dim");
  index_sizes[d] = self.sizes()[d];
  DimVector sshape = broadcast_shapes(index_sizes, self.sizes(), "take_along_dim");
  return gather(expand(self, IntList(sshape.begin(), sshape.end())), d,
                expand(indices, IntList(ishape.begin(), ishape.end())));
}

namespace {
void check_masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  EMBER_CHECK(mask.dtype() == kBool, "masked_scatter_ only supports boolean masks, but got mask "
              "with dtype ", dtype_name(mask.dtype()));
  EMBER_CHECK(self.dtype() == source.dtype(), "masked_scatter: expected self and source to have "
              "same dtypes but got", dtype_name(self.dtype()), " and ", dtype_name(source.dtype()));
}
// The first count(mask) elements of source, flattened (the values masked_scatter writes).
Tensor leading_source(const Tensor& mask, const Tensor& source) {
  const int64_t k = sum(mask).item().to_int();
  EMBER_CHECK(source.numel() >= k, "masked_scatter: Number of elements of source < number of "
              "ones in mask");
  return narrow(reshape(source, {-1}), 0, 0, k);
}
}  // namespace

Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  check_masked_scatter(self, mask, source);
  DimVector b = broadcast_shapes(self.sizes(), mask.sizes(), "masked_scatter");
  IntList shape(b.begin(), b.end());
  Tensor s = expand(self, shape), m = expand(mask, shape);
  if (s.dim() == 0) return where(m, reshape(leading_source(m, source), {}).to(s.dtype()), s);
  return index_put(s, TensorList{m}, leading_source(m, source));
}

Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source) {
  check_masked_scatter(self, mask, source);
  Tensor m = expand(mask, IntList(self.sizes().begin(), self.sizes().end()));
  if (self.dim() == 0) {
    if (m.item().to_bool()) self.copy_(reshape(leading_source(m, source), {}));
    return self;
  }
  return index_put_(self, TensorList{m}, leading_source(m, source));
}

// ---- unique_consecutive ----------------------------------------------------------------------

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse,
                                                      bool return_counts, std::optional<int64_t> dim) {
  const TensorOptions longs = TensorOptions(kInt64).device(self.device());
  if (dim && self.dim() == 0) dim.reset();  // a 0-dim tensor has only its element
  const int64_t d = dim ? wrap_dim(*dim, self.dim(), "unique_consecutive") : 0;
  // rows: one row per element (no dim) or per slice along dim.
  Tensor rows = dim ? reshape(movedim(self, d, 0), {self.sizes()[d], -1}) : reshape(self, {-1, 1});
  const int64_t n = rows.sizes()[0];
  Tensor starts;  // 1 where a new run begins
  if (n == 0) {
    starts = empty(IntList{0}, TensorOptions(kBool).device(self.device()));
  } else {
    Tensor changed = any(ne(narrow(rows, 0, 1, n - 1), narrow(rows, 0, 0, n - 1)), 1);
    starts = cat({ones({1}, TensorOptions(kBool).device(self.device())), changed}, 0);
  }
  Tensor first = reshape(nonzero(starts), {-1});
  Tensor values = dim ? index_select(self, d, first) : index_select(reshape(self, {-1}), 0, first);
  Tensor inverse, counts;
  if (return_inverse) {
    inverse = sub(cumsum(starts, 0, kInt64), 1);
    if (!dim) inverse = reshape(inverse, IntList(self.sizes().begin(), self.sizes().end()));
  } else {
    inverse = empty(IntList{0}, longs);
  }
  if (return_counts && n > 0) {
    Tensor ends = cat({narrow(first, 0, 1, first.numel() - 1), full({1}, n, longs)}, 0);
    counts = sub(ends, first);
  } else {
    counts = empty(IntList{0}, longs);
  }
  return {values, inverse, counts};
}

// ---- put ---------------------------------------------------------------------------------

Tensor& put_(Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  EMBER_CHECK(index.dtype() == kInt64, "put_(): Expected a long tensor for index, but got ",
              dtype_name(index.dtype()));
  EMBER_CHECK(self.dtype() == source.dtype(), "put_(): self and source expected to have the same "
              "dtype, but got self.dtype = ", dtype_name(self.dtype()), " and source.dtype = ",
              dtype_name(source.dtype()));
  EMBER_CHECK_INDEX(source.numel() == index.numel(), "put_(): Expected source and index to have "
                    "the same number of elements, but got source.numel() = ", source.numel(),
              ", index.numel() = ", index.numel());
  const int64_t n = self.numel();
  EMBER_CHECK_INDEX(index.numel() == 0 || n > 0, "put_(): Tried to indexing on an empty tensor");
  if (index.numel() == 0) return self;
  Tensor flat_index = reshape(index, {-1});
  Tensor bad = logical_or(lt(flat_index, -n), ge(flat_index, n));
  EMBER_CHECK_INDEX(!any(bad).item().to_bool(), "out of range: tried to access index ",
                    masked_select(flat_index, bad).select(0, 0).item().to_int(),
                    " on a tensor of ", n, " elements.");
  if (self.is_contiguous()) {
    Tensor flat = view(self, {-1});
    index_put_(flat, TensorList{flat_index}, reshape(source, {-1}), accumulate);
    return self;
  }
  Tensor flat = reshape(self, {-1});  // a copy: write it back
  index_put_(flat, TensorList{flat_index}, reshape(source, {-1}), accumulate);
  self.copy_(view(flat, IntList(self.sizes().begin(), self.sizes().end())));
  return self;
}

Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  Tensor out = clone(self);
  return put_(out, index, source, accumulate);
}

}  // namespace ember
