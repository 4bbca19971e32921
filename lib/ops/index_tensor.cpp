// numpy-style indexing: ember::index(self, {TensorIndex...}) and
// index_put_(self, {TensorIndex...}, value), and the two ops beneath them,
// index and index_put_ (PyTorch's aten::index / aten::index_put_).
//
// Note [Indexing]: an index expression is applied left to right. Integers
// select, slices slice, None inserts a dim, Ellipsis skips the dims nobody
// named: all views. Tensors (and Python bools, as [0] or [] index tensors on a
// new dim) are collected per dim of the view built so far; if there are any,
// the op `index` gathers them (a copy), per Note [Advanced indexing geometry].
// A 0-dim integer tensor acts as an integer (a view), as in PyTorch.
#include "dispatch/args/shape_index.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"
#include "dispatch/op_ids/shape_index.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"
#include "ops/index_geometry.h"

namespace ember {

TensorIndex::TensorIndex(const char* s) : kind_(Kind::Ellipsis) {
  EMBER_CHECK_INDEX(std::string(s) == "...", "TensorIndex: expected \"...\" for Ellipsis, got \"",
                    s, "\"");
}

namespace {

bool is_mask(const Tensor& t) { return t.dtype() == kBool || t.dtype() == kUInt8; }

void check_index_dtype(const Tensor& t) {
  EMBER_CHECK_INDEX(is_integral(t.dtype(), /*include_bool=*/true),
                    "tensors used as indices must be long, int, byte or bool tensors, got ",
                    dtype_name(t.dtype()));
}

// Masks become one int64 index per mask dim (its nonzero coordinates); other
// integer indices become int64; then all are broadcast to one shape.
TensorList normalize_indices(const Tensor& self, const TensorList& indices) {
  TensorList out;
  for (const Tensor& given : indices) {
    if (!given.defined()) {
      out.emplace_back();
      continue;
    }
    // As in PyTorch, CPU index tensors may index a tensor on any device (they are
    // moved there); index tensors on another device than self's and not the CPU may not.
    EMBER_CHECK(given.device() == self.device() || given.is_cpu(), "indices should be either on ",
                "cpu or on the same device as the indexed tensor (", self.device().str(), ")");
    const Tensor t = given.device() == self.device() ? given : given.to(self.device());
    check_index_dtype(t);
    if (!is_mask(t)) {
      out.push_back(t.dtype() == kInt64 ? t : t.to(kInt64));
      continue;
    }
    const int64_t start = static_cast<int64_t>(out.size());
    EMBER_CHECK_INDEX(t.dim() > 0, "index: a 0-dim bool index is only valid in an index expression");
    EMBER_CHECK_INDEX(start + t.dim() <= self.dim(), "too many indices for tensor of dimension ",
                      self.dim());
    for (int64_t j = 0; j < t.dim(); ++j)
      EMBER_CHECK_INDEX(t.sizes()[j] == self.sizes()[start + j], "The shape of the mask ",
                        shape_str(t.sizes()), " at index ", j, " does not match the shape of the "
                        "indexed tensor ", shape_str(self.sizes()), " at index ", start + j);
    Tensor nz = nonzero(t);
    for (int64_t j = 0; j < t.dim(); ++j) out.push_back(select(nz, 1, j));
  }
  EMBER_CHECK_INDEX(static_cast<int64_t>(out.size()) <= self.dim(),
                    "too many indices for tensor of dimension ", self.dim());
  while (!out.empty() && !out.back().defined()) out.pop_back();
  // Broadcast the indices together.
  const Tensor* first = nullptr;
  DimVector shape;
  std::string shapes;
  for (const Tensor& t : out) {
    if (!t.defined()) continue;
    shapes += (first ? ", " : "") + shape_str(t.sizes());
    if (!first) {
      first = &t;
      shape = t.sizes();
      continue;
    }
    IntList a(shape.begin(), shape.end()), b(t.sizes().begin(), t.sizes().end());
    size_t n = std::max(a.size(), b.size());
    a.insert(a.begin(), n - a.size(), 1);
    b.insert(b.begin(), n - b.size(), 1);
    for (size_t i = 0; i < n; ++i) {
      bool ok = a[i] == b[i] || a[i] == 1 || b[i] == 1;
      EMBER_CHECK_INDEX(ok, "shape mismatch: indexing tensors could not be broadcast together "
                        "with shapes ", shapes);
      a[i] = a[i] == 1 ? b[i] : a[i];
    }
    shape = DimVector(a.begin(), a.end());
  }
  IntList target(shape.begin(), shape.end());
  for (Tensor& t : out)
    if (t.defined() && t.sizes() != shape) t = expand(t, target);
  return out;
}

bool any_defined(const TensorList& ts) {
  for (const Tensor& t : ts)
    if (t.defined()) return true;
  return false;
}

// The dims of self that an expression names (None, Ellipsis and bools name none).
int64_t count_specified(const TensorIndex* begin, const TensorIndex* end) {
  int64_t n = 0, ellipses = 0;
  for (const TensorIndex* i = begin; i != end; ++i) {
    if (i->is_integer() || i->is_slice()) ++n;
    else if (i->is_ellipsis()) ++ellipses;
    else if (i->is_tensor()) {
      const Tensor& t = i->tensor();
      EMBER_CHECK(t.defined(), "index: undefined tensor in an index expression");
      n += is_mask(t) ? t.dim() : 1;
    }
  }
  EMBER_CHECK_INDEX(ellipses <= 1, "an index can only have a single ellipsis ('...')");
  return n;
}

// Note [Indexing]: the view after basic indexing and the advanced indices per dim of it.
struct Applied {
  Tensor view;
  TensorList advanced;
};

Tensor select_checked(const Tensor& t, int64_t dim, int64_t i, int64_t real_dim) {
  const int64_t size = t.sizes()[dim];
  EMBER_CHECK_INDEX(i >= -size && i < size, "index ", i, " is out of bounds for dimension ",
                    real_dim, " with size ", size);
  return select(t, dim, i);
}

Applied apply_indices(const Tensor& self, const TensorIndex* begin, const TensorIndex* end) {
  EMBER_CHECK(self.defined(), "index: tensor is undefined");
  const int64_t specified = count_specified(begin, end);
  EMBER_CHECK_INDEX(specified <= self.dim(), "too many indices for tensor of dimension ",
                    self.dim());
  Applied r{self, {}};
  int64_t dim = 0, real_dim = 0;
  TensorOptions long_opts = TensorOptions(kInt64).device(self.device());
  auto record = [&](const Tensor& t) {
    r.advanced.resize(static_cast<size_t>(dim) + 1);
    r.advanced[dim] = t;
  };
  auto record_bool = [&](bool b) {  // x[True] adds a dim of 1, x[False] one of 0
    r.view = unsqueeze(r.view, dim);
    record(b ? zeros(IntList{1}, long_opts) : empty(IntList{0}, long_opts));
    ++dim;
  };
  for (const TensorIndex* idx = begin; idx != end; ++idx) {
    switch (idx->kind()) {
      case TensorIndex::Kind::Integer:
        r.view = select_checked(r.view, dim, idx->integer(), real_dim++);
        break;
      case TensorIndex::Kind::Slice: {
        const indexing::Slice& s = idx->slice();
        int64_t step = s.step.value_or(1);
        EMBER_CHECK_VALUE(step > 0, "step must be greater than zero");
        r.view = slice(r.view, dim++, s.start, s.stop, step);
        ++real_dim;
        break;
      }
      case TensorIndex::Kind::None:
        r.view = unsqueeze(r.view, dim++);
        break;
      case TensorIndex::Kind::Ellipsis:
        dim += self.dim() - specified;
        real_dim += self.dim() - specified;
        break;
      case TensorIndex::Kind::Boolean:
        record_bool(idx->boolean());
        break;
      case TensorIndex::Kind::Tensor: {
        const Tensor& t = idx->tensor();
        check_index_dtype(t);
        if (t.dim() == 0 && !is_mask(t)) {
          r.view = select_checked(r.view, dim, t.item().to_int(), real_dim++);
        } else if (t.dim() == 0) {
          record_bool(t.item().to_bool());
        } else {
          record(t);
          int64_t n = is_mask(t) ? t.dim() : 1;
          dim += n;
          real_dim += n;
        }
        break;
      }
    }
  }
  return r;
}

// Leading size-1 dims of a value beyond the target's rank are dropped (PyTorch's rule).
Tensor strip_leading_ones(Tensor v, int64_t target_dim) {
  while (v.dim() > target_dim && v.sizes()[0] == 1) v = select(v, 0, 0);
  return v;
}

Tensor index_impl(const Tensor& self, const TensorIndex* begin, const TensorIndex* end) {
  Applied r = apply_indices(self, begin, end);
  if (any_defined(r.advanced)) return index(r.view, r.advanced);
  return r.view.is_same(self) ? alias(self) : r.view;
}

Tensor& index_put_impl(Tensor& self, const TensorIndex* begin, const TensorIndex* end,
                       const Tensor& value) {
  Applied r = apply_indices(self, begin, end);
  if (!any_defined(r.advanced)) {
    copy_(r.view, strip_leading_ones(value, r.view.dim()));
    return self;
  }
  index_put_(r.view, r.advanced, value.dtype() == self.dtype() ? value : value.to(self.dtype()));
  return self;
}

Tensor& index_put_impl(Tensor& self, const TensorIndex* begin, const TensorIndex* end,
                       const Scalar& value) {
  Applied r = apply_indices(self, begin, end);
  if (!any_defined(r.advanced)) {
    fill_(r.view, value);
    return self;
  }
  index_put_(r.view, r.advanced, full(IntList{}, value, TensorOptions(self.dtype()).device(self.device())));
  return self;
}

}  // namespace

// ---- the ops ------------------------------------------------------------------------------

Tensor index(const Tensor& self, const TensorList& indices) {
  TensorList idx = normalize_indices(self, indices);
  if (!any_defined(idx)) return alias(self);
  SmallVector<Tensor, 4> inputs{self};
  for (const Tensor& t : idx) inputs.push_back(t);
  OpCall call(opid::index, std::move(inputs));
  return dispatch_one(call);
}

Tensor& index_put_(Tensor& self, const TensorList& indices, const Tensor& values, bool accumulate) {
  EMBER_CHECK(values.dtype() == self.dtype(), "index_put_: Index put requires the source and "
              "destination dtypes match, got ", dtype_name(self.dtype()), " for the destination "
              "and ", dtype_name(values.dtype()), " for the source.");
  TensorList idx = normalize_indices(self, indices);
  if (!any_defined(idx)) {
    copy_(self, values);
    return self;
  }
  const DimVector result = advanced_index_geometry(self.sizes(), idx).result_shape;
  Tensor v = strip_leading_ones(values, static_cast<int64_t>(result.size()));
  bool fits = v.dim() <= static_cast<int64_t>(result.size());
  for (int64_t i = 1; fits && i <= v.dim(); ++i) {
    int64_t have = v.sizes()[v.dim() - i], want = result[result.size() - i];
    fits = have == want || have == 1;
  }
  EMBER_CHECK(fits, "shape mismatch: value tensor of shape ", shape_str(values.sizes()),
              " cannot be broadcast to indexing result of shape ", shape_str(result));
  // A value that shares self's memory is read before any write lands.
  if (v.impl()->storage() == self.impl()->storage()) v = clone(v);
  SmallVector<Tensor, 4> inputs{self, v};
  for (const Tensor& t : idx) inputs.push_back(t);
  OpCall call(opid::index_put_, std::move(inputs), IndexPutArgs{.accumulate = accumulate}.attrs());
  call.outputs.push_back(self);
  dispatch(call);
  return self;
}

Tensor index_put(const Tensor& self, const TensorList& indices, const Tensor& values,
                 bool accumulate) {
  Tensor out = clone(self);
  return index_put_(out, indices, values, accumulate);
}

// ---- index expressions ------------------------------------------------------------------

Tensor index(const Tensor& self, std::initializer_list<TensorIndex> indices) {
  return index_impl(self, indices.begin(), indices.end());
}
Tensor index(const Tensor& self, const std::vector<TensorIndex>& indices) {
  return index_impl(self, indices.data(), indices.data() + indices.size());
}
Tensor& index_put_(Tensor& self, std::initializer_list<TensorIndex> indices, const Tensor& value) {
  return index_put_impl(self, indices.begin(), indices.end(), value);
}
Tensor& index_put_(Tensor& self, const std::vector<TensorIndex>& indices, const Tensor& value) {
  return index_put_impl(self, indices.data(), indices.data() + indices.size(), value);
}
Tensor& index_put_(Tensor& self, std::initializer_list<TensorIndex> indices, const Scalar& value) {
  return index_put_impl(self, indices.begin(), indices.end(), value);
}
Tensor& index_put_(Tensor& self, const std::vector<TensorIndex>& indices, const Scalar& value) {
  return index_put_impl(self, indices.data(), indices.data() + indices.size(), value);
}

// ---- methods ------------------------------------------------------------------------------

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const { return ember::index(*this, indices); }
Tensor Tensor::index(const std::vector<TensorIndex>& indices) const { return ember::index(*this, indices); }
Tensor Tensor::index(const TensorList& indices) const { return ember::index(*this, indices); }
Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value) {
  ember::index_put_(*this, indices, value);
  return *this;
}
Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Tensor& value) {
  ember::index_put_(*this, indices, value);
  return *this;
}
Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Scalar& value) {
  ember::index_put_(*this, indices, value);
  return *this;
}
Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Scalar& value) {
  ember::index_put_(*this, indices, value);
  return *this;
}
Tensor& Tensor::index_put_(const TensorList& indices, const Tensor& values, bool accumulate) {
  ember::index_put_(*this, indices, values, accumulate);
  return *this;
}

}  // namespace ember
