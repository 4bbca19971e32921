// Rearranging a tensor: flip, tril, triu (ops) and the composites repeat,
// tile, fliplr, flipud, roll, diag, diagonal.
#include <algorithm>

#include "dispatch/args/shape_index.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"
#include "dispatch/op_ids/shape_index.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"

namespace ember {

// x viewed as [1, s0, 1, s1, ...], expanded to [r0, s0, r1, s1, ...] and copied:
// one pass, no kernel of its own.
Tensor repeat(const Tensor& self, const IntList& repeats) {
  const int64_t m = static_cast<int64_t>(repeats.size()), nd = self.dim();
  EMBER_CHECK(m >= nd, "repeat: Number of dimensions of repeat dims (", m, ") can not be smaller "
              "than number of dimensions of tensor (", nd, ")");
  IntList padded(m - nd, 1), interleaved, expanded, final_shape;
  padded.insert(padded.end(), self.sizes().begin(), self.sizes().end());
  for (int64_t i = 0; i < m; ++i) {
    EMBER_CHECK(repeats[i] >= 0, "repeat: trying to create tensor with negative dimension ",
                repeats[i] * padded[i], ": repeats ",
                shape_str(DimVector(repeats.begin(), repeats.end())));
    interleaved.insert(interleaved.end(), {1, padded[i]});
    expanded.insert(expanded.end(), {repeats[i], padded[i]});
    final_shape.push_back(repeats[i] * padded[i]);
  }
  Tensor x = reshape(self, interleaved);  // only adds size-1 dims: a view
  return view(clone(expand(x, expanded)), final_shape);
}

Tensor tile(const Tensor& self, const IntList& dims) {
  IntList reps(std::max<int64_t>(0, self.dim() - static_cast<int64_t>(dims.size())), 1);
  reps.insert(reps.end(), dims.begin(), dims.end());
  return repeat(self, reps);
}

Tensor flip(const Tensor& self, const IntList& dims) {
  DimVector wrapped;
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, self.dim(), "flip");
    EMBER_CHECK(std::find(wrapped.begin(), wrapped.end(), w) == wrapped.end(), "flip: dim ", w,
                " appears multiple times in the list of dims");
    wrapped.push_back(w);
  }
  if (self.dim() == 0) wrapped.clear();
  OpCall call(opid::flip, {self}, FlipArgs{.dims = wrapped}.attrs());
  return dispatch_one(call);
}

Tensor fliplr(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, "fliplr: input tensor must be >= 2-d, got ", self.dim(), "-d");
  return flip(self, {1});
}

Tensor flipud(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 1, "flipud: input tensor must be >= 1-d, got 0-d");
  return flip(self, {0});
}

// Each rolled dim is two slices swapped by one cat.
Tensor roll(const Tensor& self, const IntList& shifts, const IntList& dims) {
  EMBER_CHECK(!shifts.empty(), "roll: `shifts` required");
  if (dims.empty()) {
    EMBER_CHECK(shifts.size() == 1, "roll: shifts and dimensions must align. shifts: ",
                shifts.size(), ", dims: 0");
    return view(roll(flatten(self), shifts, {0}), IntList(self.sizes().begin(), self.sizes().end()));
  }
  EMBER_CHECK(shifts.size() == dims.size(), "roll: shifts and dimensions must align. shifts: ",
              shifts.size(), ", dims: ", dims.size());
  Tensor out = self;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], self.dim(), "roll");
    if (self.dim() == 0) continue;
    int64_t n = out.sizes()[d];
    if (n == 0) continue;
    int64_t s = ((shifts[i] % n) + n) % n;
    if (s == 0) continue;
    out = cat({narrow(out, d, n - s, s), narrow(out, d, 0, n - s)}, d);
  }
  return out.is_same(self) ? clone(self) : out;
}

namespace {
// Args: TrilArgs or TriuArgs.
template <typename Args>
Tensor triangle(const Tensor& self, int64_t diagonal, const char* name) {
  EMBER_CHECK(self.dim() >= 2, name, ": input tensor must have at least 2 dimensions, got ",
              describe(self));
  OpCall call(Args::op, {self}, Args{.diagonal = diagonal}.attrs());
  return dispatch_one(call);
}
}  // namespace

Tensor tril(const Tensor& self, int64_t diagonal) { return triangle<TrilArgs>(self, diagonal, "tril"); }
Tensor triu(const Tensor& self, int64_t diagonal) { return triangle<TriuArgs>(self, diagonal, "triu"); }

Tensor diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t nd = self.dim();
  EMBER_CHECK(nd >= 2, "diagonal: expected a tensor with at least 2 dimensions, got ", describe(self));
  const int64_t d1 = wrap_dim(dim1, nd, "diagonal"), d2 = wrap_dim(dim2, nd, "diagonal");
  EMBER_CHECK(d1 != d2, "diagonal: diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t s1 = self.sizes()[d1], s2 = self.sizes()[d2];
  int64_t len = offset >= 0 ? std::min(s1, s2 - offset) : std::min(s1 + offset, s2);
  len = std::max<int64_t>(len, 0);
  int64_t start = self.storage_offset();
  if (len > 0) start += offset >= 0 ? offset * self.strides()[d2] : -offset * self.strides()[d1];
  IntList sizes, strides;
  for (int64_t d = 0; d < nd; ++d)
    if (d != d1 && d != d2) {
      sizes.push_back(self.sizes()[d]);
      strides.push_back(self.strides()[d]);
    }
  sizes.push_back(len);
  strides.push_back(self.strides()[d1] + self.strides()[d2]);
  return as_strided(self, sizes, strides, start);
}

Tensor diag(const Tensor& self, int64_t diagonal_offset) {
  if (self.dim() == 1) {
    const int64_t n = self.sizes()[0] + std::abs(diagonal_offset);
    Tensor out = zeros(IntList{n, n}, TensorOptions(self.dtype()).device(self.device()));
    Tensor d = diagonal(out, diagonal_offset);
    copy_(d, self);
    return out;
  }
  EMBER_CHECK(self.dim() == 2, "diag(): Supports 1D or 2D tensors. Got ", self.dim(), "D");
  return clone(diagonal(self, diagonal_offset));
}

// ---- methods ------------------------------------------------------------------------------

Tensor Tensor::repeat(const IntList& repeats) const { return ember::repeat(*this, repeats); }
Tensor Tensor::tile(const IntList& dims) const { return ember::tile(*this, dims); }
Tensor Tensor::flip(const IntList& dims) const { return ember::flip(*this, dims); }
Tensor Tensor::fliplr() const { return ember::fliplr(*this); }
Tensor Tensor::flipud() const { return ember::flipud(*this); }
Tensor Tensor::roll(const IntList& shifts, const IntList& dims) const {
  return ember::roll(*this, shifts, dims);
}
Tensor Tensor::tril(int64_t diagonal) const { return ember::tril(*this, diagonal); }
Tensor Tensor::triu(int64_t diagonal) const { return ember::triu(*this, diagonal); }
Tensor Tensor::diag(int64_t diagonal) const { return ember::diag(*this, diagonal); }
Tensor Tensor::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  return ember::diagonal(*this, offset, dim1, dim2);
}

}  // namespace ember
