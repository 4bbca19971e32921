// Sorting kernels: sort, topk (along a dim, in parallel over the other dims)
// and unique (of all elements, or of the slices along a dim).
//
// Note [NaN order]: as in PyTorch, NaN compares larger than every number, so it
// sorts last ascending and first descending, and topk(largest) picks it first.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "cpu/dtype_dispatch.h"
#include "cpu/index_loops.h"
#include "ember/ops/factories.h"

namespace ember::cpu {
namespace {

template <typename K>
inline bool is_nan(K v) {
  if constexpr (std::is_floating_point_v<K>) return std::isnan(v);
  else return false;
}

// a < b in Note [NaN order].
template <typename K>
inline bool nan_last_less(K a, K b) {
  if constexpr (std::is_floating_point_v<K>) return (!std::isnan(a) && std::isnan(b)) || a < b;
  else return a < b;
}

template <typename K>
struct Entry {
  K key;
  int64_t index;
};

// Sorts `entries` (key order per Note [NaN order], then by index, so equal keys keep
// their order: a stable sort at the price of an unstable one).
template <typename K>
void sort_entries(std::vector<Entry<K>>& e, bool descending) {
  if (descending)
    std::sort(e.begin(), e.end(), [](const Entry<K>& a, const Entry<K>& b) {
      return nan_last_less(b.key, a.key) || (!nan_last_less(a.key, b.key) && a.index < b.index);
    });
  else
    std::sort(e.begin(), e.end(), [](const Entry<K>& a, const Entry<K>& b) {
      return nan_last_less(a.key, b.key) || (!nan_last_less(b.key, a.key) && a.index < b.index);
    });
}

struct SliceIO {
  DimVector outer;                    // sizes of every dim but dim
  std::array<DimVector, 3> strides;   // values, indices, self: byte strides over outer
  int64_t vs, is, ss;                 // byte strides along dim
};

SliceIO slice_io(const Tensor& values, const Tensor& indices, const Tensor& self, int64_t dim) {
  SliceIO io;
  io.outer = self.sizes();
  io.outer.erase(io.outer.begin() + dim);
  io.strides = {byte_strides_without(values, dim), byte_strides_without(indices, dim),
                byte_strides_without(self, dim)};
  io.vs = values.strides()[dim] * values.element_size();
  io.is = indices.strides()[dim] * 8;
  io.ss = self.strides()[dim] * self.element_size();
  return io;
}

// For each slice along dim: load (key, index) entries, order them with `order`
// (which may keep only the first `keep`), write values and indices.
template <typename scalar_t, typename Order>
void per_slice(const Tensor& values, const Tensor& indices, const Tensor& self, int64_t dim,
               int64_t keep, const Order& order) {
  using K = opmath_t<scalar_t>;
  const int64_t len = self.sizes()[dim];
  SliceIO io = slice_io(values, indices, self, dim);
  char* vb = static_cast<char*>(values.data_ptr());
  char* ib = static_cast<char*>(indices.data_ptr());
  const char* sb = static_cast<const char*>(self.data_ptr());
  for_each_block<3>(io.outer, io.strides, len * 8,
                    [&](int64_t, int64_t n, const std::array<const int64_t*, 3>& offs) {
    std::vector<Entry<K>> e(static_cast<size_t>(len));
    for (int64_t p = 0; p < n; ++p) {
      const char* s = sb + offs[2][p];
      for (int64_t j = 0; j < len; ++j)
        e[j] = {static_cast<K>(*reinterpret_cast<const scalar_t*>(s + j * io.ss)), j};
      order(e);
      for (int64_t j = 0; j < keep; ++j) {
        *reinterpret_cast<scalar_t*>(vb + offs[0][p] + j * io.vs) =
            *reinterpret_cast<const scalar_t*>(s + e[j].index * io.ss);
        *reinterpret_cast<int64_t*>(ib + offs[1][p] + j * io.is) = e[j].index;
      }
    }
  });
}

// A 0-dim self is sorted as a 1-element 1-d tensor.
Tensor as_1d(const Tensor& t) { return t.dim() ? t : restride(t, {1}, {1}, t.storage_offset()); }

void sort_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const int64_t dim = self.dim() ? c.attr(0).to_int() : 0;
  const bool descending = c.attr(1).to_bool();
  TensorOptions opts = TensorOptions(self.dtype()).device(self.device());
  Tensor values = empty(self.sizes(), opts);
  Tensor indices = empty(self.sizes(), opts.dtype(kInt64));
  if (self.numel()) {
    EMBER_DISPATCH_ALL(self.dtype(), "sort", [&] {
      per_slice<scalar_t>(as_1d(values), as_1d(indices), as_1d(self), dim, as_1d(self).sizes()[dim],
                          [descending](auto& e) { sort_entries(e, descending); });
    });
  }
  c.outputs.push_back(values);
  c.outputs.push_back(indices);
}

// The k best of each slice, in order (largest: NaN first, then descending);
// ties keep the lower index first.
void topk_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const int64_t k = c.attr(0).to_int();
  const int64_t dim = self.dim() ? c.attr(1).to_int() : 0;
  const bool largest = c.attr(2).to_bool();
  DimVector sizes = self.sizes();
  if (self.dim()) sizes[dim] = k;
  TensorOptions opts = TensorOptions(self.dtype()).device(self.device());
  Tensor values = empty(sizes, opts);
  Tensor indices = empty(sizes, opts.dtype(kInt64));
  if (values.numel()) {
    EMBER_DISPATCH_ALL(self.dtype(), "topk", [&] {
      using K = opmath_t<scalar_t>;
      per_slice<scalar_t>(as_1d(values), as_1d(indices), as_1d(self), dim, k, [&](auto& e) {
        auto better = [largest](const Entry<K>& a, const Entry<K>& b) {
          bool a_first = largest ? nan_last_less(b.key, a.key) : nan_last_less(a.key, b.key);
          bool b_first = largest ? nan_last_less(a.key, b.key) : nan_last_less(b.key, a.key);
          return a_first || (!b_first && a.index < b.index);
        };
        std::partial_sort(e.begin(), e.begin() + k, e.end(), better);
      });
    });
  }
  c.outputs.push_back(values);
  c.outputs.push_back(indices);
}

// ---- unique --------------------------------------------------------------------------

// Unique elements of the flattened self: sort (key, position) entries, then
// each run of equal keys is one value (NaN != NaN, so each NaN is its own run).
template <typename scalar_t>
void unique_flat(const Tensor& self, Tensor& values, Tensor& inverse, Tensor& counts) {
  using K = opmath_t<scalar_t>;
  const int64_t n = self.numel();
  Tensor flat = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  copy_into(flat, self);  // row-major order
  const scalar_t* x = flat.data_ptr<scalar_t>();
  std::vector<Entry<K>> e(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) e[i] = {static_cast<K>(x[i]), i};
  sort_entries(e, false);
  std::vector<int64_t> starts;
  for (int64_t i = 0; i < n; ++i)
    if (i == 0 || !(e[i].key == e[i - 1].key)) starts.push_back(i);
  const int64_t u = static_cast<int64_t>(starts.size());
  TensorOptions opts = TensorOptions(kInt64).device(self.device());
  values = empty(IntList{u}, TensorOptions(self.dtype()).device(self.device()));
  counts = empty(IntList{u}, opts);
  inverse = empty(self.sizes(), opts);
  scalar_t* v = values.data_ptr<scalar_t>();
  int64_t* cnt = counts.data_ptr<int64_t>();
  int64_t* inv = inverse.data_ptr<int64_t>();
  for (int64_t r = 0; r < u; ++r) {
    int64_t end = r + 1 < u ? starts[r + 1] : n;
    v[r] = x[e[starts[r]].index];
    cnt[r] = end - starts[r];
    for (int64_t i = starts[r]; i < end; ++i) inv[e[i].index] = r;
  }
}

// Unique slices along dim: self is copied with dim first as rows [n, rest]; rows
// are sorted lexicographically (Note [NaN order] per element) and runs of equal
// rows merged.
template <typename scalar_t>
void unique_dim(const Tensor& self, int64_t dim, Tensor& values, Tensor& inverse, Tensor& counts) {
  using K = opmath_t<scalar_t>;
  const int64_t nd = self.dim(), n = self.sizes()[dim];
  DimVector perm_sizes{n}, perm_strides{self.strides()[dim]};
  for (int64_t d = 0; d < nd; ++d)
    if (d != dim) {
      perm_sizes.push_back(self.sizes()[d]);
      perm_strides.push_back(self.strides()[d]);
    }
  TensorOptions opts = TensorOptions(self.dtype()).device(self.device());
  Tensor rows = empty(perm_sizes, opts);
  copy_into(rows, restride(self, perm_sizes, perm_strides, self.storage_offset()));
  const int64_t rest = n ? rows.numel() / n : 0;
  const scalar_t* x = static_cast<const scalar_t*>(rows.data_ptr());
  auto row_less = [&](int64_t a, int64_t b) {
    for (int64_t i = 0; i < rest; ++i) {
      K ka = static_cast<K>(x[a * rest + i]), kb = static_cast<K>(x[b * rest + i]);
      if (nan_last_less(ka, kb)) return true;
      if (nan_last_less(kb, ka)) return false;
    }
    return false;
  };
  auto row_equal = [&](int64_t a, int64_t b) {
    for (int64_t i = 0; i < rest; ++i)
      if (!(static_cast<K>(x[a * rest + i]) == static_cast<K>(x[b * rest + i]))) return false;
    return true;
  };
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), row_less);
  std::vector<int64_t> starts;
  for (int64_t i = 0; i < n; ++i)
    if (i == 0 || !row_equal(order[i], order[i - 1])) starts.push_back(i);
  const int64_t u = static_cast<int64_t>(starts.size());
  counts = empty(IntList{u}, TensorOptions(kInt64).device(self.device()));
  inverse = empty(IntList{n}, TensorOptions(kInt64).device(self.device()));
  DimVector urows_sizes = perm_sizes;
  urows_sizes[0] = u;
  Tensor urows = empty(urows_sizes, opts);
  scalar_t* ur = static_cast<scalar_t*>(urows.data_ptr());
  for (int64_t r = 0; r < u; ++r) {
    int64_t end = r + 1 < u ? starts[r + 1] : n;
    std::copy(x + order[starts[r]] * rest, x + order[starts[r]] * rest + rest, ur + r * rest);
    counts.data_ptr<int64_t>()[r] = end - starts[r];
    for (int64_t i = starts[r]; i < end; ++i) inverse.data_ptr<int64_t>()[order[i]] = r;
  }
  // Back to self's dim order: values is self's shape with u along dim.
  DimVector out_sizes = self.sizes();
  out_sizes[dim] = u;
  values = empty(out_sizes, opts);
  DimVector vs = contiguous_strides(out_sizes), pv_strides{vs[dim]};
  for (int64_t d = 0; d < nd; ++d)
    if (d != dim) pv_strides.push_back(vs[d]);
  copy_into(restride(values, urows_sizes, pv_strides, 0), urows);
}

void unique_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  Tensor values, inverse, counts;
  EMBER_DISPATCH_ALL(self.dtype(), "unique", [&] {
    if (c.attr(0).is_none()) unique_flat<scalar_t>(self, values, inverse, counts);
    else unique_dim<scalar_t>(self, c.attr(0).to_int(), values, inverse, counts);
  });
  c.outputs.push_back(values);
  c.outputs.push_back(inverse);
  c.outputs.push_back(counts);
}

EMBER_REGISTER_KERNEL(sort, CPU, sort_kernel);
EMBER_REGISTER_KERNEL(topk, CPU, topk_kernel);
EMBER_REGISTER_KERNEL(unique, CPU, unique_kernel);

}  // namespace
}  // namespace ember::cpu
