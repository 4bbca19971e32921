// The tensor API round-out, part 1: more views and shape queries, stacking and
// splitting by axis (numpy's h/v/d names), rot90, diagonal embedding, block_diag,
// vander, and the deterministic-algorithms switch. All composites of other ops.
#include <algorithm>
#include <atomic>
#include <cstdlib>

#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/tensor_api.h"
#include "ember/ops/views.h"
#include "dispatch/op_ids/reduce.h"

namespace ember {

namespace {
std::string ints_str(const IntList& v) { return shape_str(DimVector(v.begin(), v.end())); }

void check_nonempty(const TensorList& tensors, const char* op) {
  EMBER_CHECK(!tensors.empty(), op, " expects a non-empty TensorList");
  for (size_t i = 0; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].defined(), op, ": tensor ", i, " of the list is undefined");
}
}  // namespace

// ---- views and shape queries -----------------------------------------------------------

Tensor movedim(const Tensor& self, const IntList& src, const IntList& dst) {
  const int64_t n = self.dim();
  EMBER_CHECK(src.size() == dst.size(), "movedim: Invalid source or destination dims: source (",
              ints_str(src), " dims) should contain the same number of dims as destination (",
              ints_str(dst), " dims)");
  IntList s(src.size()), d(dst.size());
  std::vector<bool> seen_s(std::max<int64_t>(n, 1), false), seen_d(std::max<int64_t>(n, 1), false);
  for (size_t i = 0; i < src.size(); ++i) {
    s[i] = wrap_dim(src[i], n, "movedim");
    d[i] = wrap_dim(dst[i], n, "movedim");
    EMBER_CHECK(!seen_s[s[i]], "movedim: repeated dim in `source` (", ints_str(src), ")");
    EMBER_CHECK(!seen_d[d[i]], "movedim: repeated dim in `destination` (", ints_str(dst), ")");
    seen_s[s[i]] = seen_d[d[i]] = true;
  }
  if (n == 0) return alias(self);
  IntList order(n, -1);
  for (size_t i = 0; i < s.size(); ++i) order[d[i]] = s[i];
  int64_t next = 0;  // the dims not moved keep their relative order in the free slots
  for (int64_t& o : order) {
    if (o != -1) continue;
    while (seen_s[next]) ++next;
    o = next++;
  }
  return permute(self, order);
}

Tensor moveaxis(const Tensor& self, const IntList& src, const IntList& dst) {
  return movedim(self, src, dst);
}
Tensor swapaxes(const Tensor& self, int64_t d0, int64_t d1) { return transpose(self, d0, d1); }
Tensor swapdims(const Tensor& self, int64_t d0, int64_t d1) { return transpose(self, d0, d1); }

Tensor squeeze_dims(const Tensor& self, const IntList& dims) {
  const int64_t n = self.dim();
  std::vector<int64_t> wrapped;
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, n, "squeeze");
    EMBER_CHECK(std::find(wrapped.begin(), wrapped.end(), w) == wrapped.end(), "squeeze: dim ", w,
                " appears multiple times in the list of dims");
    wrapped.push_back(w);
  }
  std::sort(wrapped.rbegin(), wrapped.rend());  // from the back, so earlier dims keep their place
  Tensor r = alias(self);
  for (int64_t d : wrapped) r = squeeze(r, d);
  return r;
}

Tensor ravel(const Tensor& self) { return view(contiguous(self), {-1}); }

Tensor narrow_copy(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return clone(narrow(self, dim, start, length));
}

Tensor broadcast_to(const Tensor& self, const IntList& shape) { return expand(self, shape); }

DimVector broadcast_shapes(const std::vector<IntList>& shapes) {
  DimVector out;
  for (const IntList& s : shapes) {
    for (int64_t v : s)
      EMBER_CHECK_VALUE(v >= 0, "Attempting to broadcast a dimension with negative length!");
    out = broadcast_shapes(out, DimVector(s.begin(), s.end()), "broadcast_shapes");
  }
  return out;
}

TensorList broadcast_tensors(const TensorList& tensors) {
  DimVector shape;
  for (const Tensor& t : tensors) shape = broadcast_shapes(shape, t.sizes(), "broadcast_tensors");
  TensorList out;
  for (const Tensor& t : tensors) out.push_back(expand(t, IntList(shape.begin(), shape.end())));
  return out;
}

Tensor sum_to_size(const Tensor& self, const IntList& size) {
  const int64_t n = self.dim(), m = static_cast<int64_t>(size.size());
  bool ok = m <= n;
  for (int64_t i = 0; ok && i < m; ++i) {
    int64_t have = self.sizes()[n - m + i];
    ok = size[i] == have || size[i] == 1;
  }
  EMBER_CHECK(ok, "size {", ints_str(size), "} is not expandable to size {", shape_str(self.sizes()),
              "}.");
  IntList dims;
  for (int64_t d = 0; d < n - m; ++d) dims.push_back(d);
  for (int64_t i = 0; i < m; ++i)
    if (size[i] == 1 && self.sizes()[n - m + i] != 1) dims.push_back(n - m + i);
  if (dims.empty()) return self;
  return view(sum(self, dims, /*keepdim=*/true), size);
}

Tensor adjoint(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, "tensor.adjoint() is only supported on matrices or batches of "
              "matrices. Got ", self.dim(), "-D tensor.");
  return transpose(self, -2, -1);
}

bool is_nonzero(const Tensor& self) {
  EMBER_CHECK(self.numel() != 0, "Boolean value of Tensor with no values is ambiguous");
  EMBER_CHECK(self.numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
  return self.item().to_bool();
}

bool is_same_size(const Tensor& a, const Tensor& b) { return a.sizes() == b.sizes(); }

// ---- stacking and splitting by axis ------------------------------------------------------

Tensor atleast_1d(const Tensor& self) { return self.dim() == 0 ? reshape(self, {1}) : self; }

Tensor atleast_2d(const Tensor& self) {
  if (self.dim() == 0) return reshape(self, {1, 1});
  return self.dim() == 1 ? unsqueeze(self, 0) : self;
}

Tensor atleast_3d(const Tensor& self) {
  switch (self.dim()) {
    case 0: return reshape(self, {1, 1, 1});
    case 1: return unsqueeze(unsqueeze(self, 0), -1);
    case 2: return unsqueeze(self, -1);
    default: return self;
  }
}

namespace {
template <Tensor (*F)(const Tensor&)>
TensorList each(const TensorList& tensors) {
  TensorList out;
  for (const Tensor& t : tensors) out.push_back(F(t));
  return out;
}
}  // namespace

TensorList atleast_1d(const TensorList& tensors) { return each<atleast_1d>(tensors); }
TensorList atleast_2d(const TensorList& tensors) { return each<atleast_2d>(tensors); }
TensorList atleast_3d(const TensorList& tensors) { return each<atleast_3d>(tensors); }

Tensor column_stack(const TensorList& tensors) {
  check_nonempty(tensors, "column_stack");
  TensorList cols;
  for (const Tensor& t : tensors) cols.push_back(t.dim() <= 1 ? reshape(t, {t.numel(), 1}) : t);
  return hstack(cols);
}

Tensor row_stack(const TensorList& tensors) { return vstack(tensors); }

Tensor dstack(const TensorList& tensors) {
  check_nonempty(tensors, "dstack");
  return cat(atleast_3d(tensors), 2);
}

namespace {
// numpy's h/v/dsplit: tensor_split along `dim`, needing min_dims dims; an int
// `sections` must divide the size exactly.
void check_axis_split(const Tensor& self, const char* op, int64_t min_dims) {
  EMBER_CHECK(self.dim() >= min_dims, "torch.", op, " requires a tensor with at least ", min_dims,
              " dimension", min_dims == 1 ? "" : "s", ", but got a tensor with ", self.dim(),
              " dimensions!");
}
TensorList axis_split(const Tensor& self, int64_t sections, int64_t dim, const char* op) {
  const int64_t size = self.sizes()[dim];
  EMBER_CHECK(sections != 0 && size % sections == 0, "torch.", op,
              " attempted to split along dimension ", dim, ", but the size of the dimension ",
              size, " is not divisible by the split_size ", sections, "!");
  return tensor_split(self, sections, dim);
}
}  // namespace

TensorList hsplit(const Tensor& self, int64_t sections) {
  check_axis_split(self, "hsplit", 1);
  return axis_split(self, sections, self.dim() == 1 ? 0 : 1, "hsplit");
}
TensorList hsplit(const Tensor& self, const IntList& indices) {
  check_axis_split(self, "hsplit", 1);
  return tensor_split(self, indices, self.dim() == 1 ? 0 : 1);
}
TensorList vsplit(const Tensor& self, int64_t sections) {
  check_axis_split(self, "vsplit", 2);
  return axis_split(self, sections, 0, "vsplit");
}
TensorList vsplit(const Tensor& self, const IntList& indices) {
  check_axis_split(self, "vsplit", 2);
  return tensor_split(self, indices, 0);
}
TensorList dsplit(const Tensor& self, int64_t sections) {
  check_axis_split(self, "dsplit", 3);
  return axis_split(self, sections, 2, "dsplit");
}
TensorList dsplit(const Tensor& self, const IntList& indices) {
  check_axis_split(self, "dsplit", 3);
  return tensor_split(self, indices, 2);
}

// PyTorch's formulation: a flip and a transpose per quarter turn.
Tensor rot90(const Tensor& self, int64_t k, const IntList& dims) {
  const int64_t n = self.dim(), nd = static_cast<int64_t>(dims.size());
  EMBER_CHECK(nd == 2, "expected total rotation dims == 2, but got dims = ", nd);
  EMBER_CHECK(n >= 2, "expected total dims >= 2, but got total dims = ", n);
  EMBER_CHECK(dims[0] != dims[1] && std::abs(dims[0] - dims[1]) != n, "expected rotation dims to "
              "be different, but got dim0 = ", dims[0], " and dim1 = ", dims[1]);
  const int64_t d0 = wrap_dim(dims[0], n, "rot90"), d1 = wrap_dim(dims[1], n, "rot90");
  switch (((k % 4) + 4) % 4) {
    case 1: return transpose(flip(self, {d1}), d0, d1);
    case 2: return flip(self, {d0, d1});
    case 3: return transpose(flip(self, {d0}), d0, d1);
    default: return clone(self);
  }
}

Tensor diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t n = self.dim() + 1;
  EMBER_CHECK(self.dim() >= 1, "diag_embed: expected a tensor with at least 1 dimension");
  int64_t d1 = wrap_dim(dim1, n, "diag_embed"), d2 = wrap_dim(dim2, n, "diag_embed");
  EMBER_CHECK(d1 != d2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t m = self.sizes()[self.dim() - 1] + std::abs(offset);
  IntList shape;
  int64_t next = 0;
  for (int64_t d = 0; d < n; ++d) shape.push_back(d == d1 || d == d2 ? m : self.sizes()[next++]);
  return diagonal_scatter(zeros(shape, TensorOptions(self.dtype()).device(self.device())), self,
                          offset, d1, d2);
}

Tensor diagflat(const Tensor& self, int64_t offset) { return diag(reshape(self, {-1}), offset); }

Tensor block_diag(const TensorList& tensors) {
  DType dtype = tensors.empty() ? default_dtype() : tensors[0].dtype();
  int64_t cols = 0;
  TensorList mats;  // each input as a matrix: 0-d -> 1x1, 1-d -> a row
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() <= 2, "torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                "Input ", i, " has ", t.dim(), " dimensions");
    EMBER_CHECK(t.device() == tensors[0].device(), "torch.block_diag: input tensors must all be "
                "on the same device. Input 0 is on device ", tensors[0].device().str(),
                " and input ", i, " is on device ", t.device().str());
    dtype = promote_types(dtype, t.dtype());
    mats.push_back(t.dim() == 2 ? t : reshape(t, {1, t.numel()}));
    cols += mats.back().sizes()[1];
  }
  const TensorOptions opts =
      TensorOptions(dtype).device(tensors.empty() ? Device(kCPU) : tensors[0].device());
  if (mats.empty()) return empty(IntList{1, 0}, opts);
  // Each block padded with zeros to full width, then the bands stacked: differentiable
  // without writing into a view.
  TensorList bands;
  int64_t c = 0;
  for (const Tensor& m : mats) {
    const int64_t h = m.sizes()[0], w = m.sizes()[1];
    bands.push_back(cat({zeros({h, c}, opts), m.to(dtype), zeros({h, cols - c - w}, opts)}, 1));
    c += w;
  }
  return cat(bands, 0);
}

Tensor vander(const Tensor& x, std::optional<int64_t> N, bool increasing) {
  EMBER_CHECK(x.dim() == 1, "x must be a one-dimensional tensor.");
  const int64_t n = N.value_or(x.sizes()[0]);
  EMBER_CHECK(n >= 0, "N must be non-negative.");
  const DType dtype = promote_types(x.dtype(), kInt64);
  const TensorOptions opts = TensorOptions(dtype).device(x.device());
  const int64_t rows = x.sizes()[0];
  if (n == 0) return empty(IntList{rows, 0}, opts);
  Tensor ones_col = ones({rows, 1}, opts);
  Tensor r = n == 1 ? ones_col
                    : cumprod(cat({ones_col, expand(unsqueeze(x.to(dtype), 1), {rows, n - 1})}, 1), 1);
  return increasing ? r : flip(r, {1});
}

// ---- global switches -----------------------------------------------------------------------

namespace {
std::atomic<bool> g_deterministic{false}, g_deterministic_warn_only{false};
}  // namespace

void use_deterministic_algorithms(bool mode, bool warn_only) {
  g_deterministic = mode;
  g_deterministic_warn_only = warn_only;
}
bool are_deterministic_algorithms_enabled() { return g_deterministic; }
bool is_deterministic_algorithms_warn_only_enabled() { return g_deterministic_warn_only; }

}  // namespace ember
