// Sorting kernels: sort, topk (along a dim, in parallel over the other dims)
// and unique (of all elements, or of the slices along a dim).
//
// Note [NaN order]: as in PyTorch, NaN compares larger than every number, so it
// sorts last ascending and first descending, and topk(largest) picks it first.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "kernels/sort_key.h"
#include "kernels/dtype_dispatch.h"
#include "cpu/index_loops.h"
#include "kernels/sort_outputs.h"
#include "ember/ops/factories.h"
#include "dispatch/args/shape_index.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember::cpu {

namespace {

// a < b in Note [NaN order] (for the row comparisons of unique(dim)).
template <typename K>
inline bool nan_last_less(K a, K b) {
  if constexpr (std::is_floating_point_v<K>) return (!std::isnan(a) && std::isnan(b)) || a < b;
  else return a < b;
}

// Note [Sort keys] (kernels/sort_key.h): each element becomes an unsigned key in
// Note [NaN order]; ties break by index, so every sort is stable.
template <typename T>
using key_t = sort_key_t<T>;

// Puts the first `keep` entries of e in order (all of them when keep == size).
template <typename E>
void order_first(std::vector<E>& e, int64_t keep) {
  const int64_t n = static_cast<int64_t>(e.size());
  if (keep >= n) {
    std::sort(e.begin(), e.end());
  } else if (keep * 16 < n) {
    std::partial_sort(e.begin(), e.begin() + keep, e.end());
  } else if (keep > 0) {
    std::nth_element(e.begin(), e.begin() + keep - 1, e.end());
    std::sort(e.begin(), e.begin() + keep);
  }
}

// Orders the elements of one slice by Note [Sort keys]. A 32-bit key and its
// index share one uint64 (one integer compare per comparison) when they fit.
template <typename T>
class SliceSorter {
 public:
  // x[j * stride] for j < len; afterwards index(j) for j < keep is the j-th in order.
  void run(const T* x, int64_t stride, int64_t len, int64_t keep, bool descending) {
    const key_t<T> flip = descending ? ~key_t<T>(0) : key_t<T>(0);
    packed_mode_ = sizeof(key_t<T>) == 4 && len <= int64_t(UINT32_MAX);
    if (packed_mode_) {
      packed_.resize(static_cast<size_t>(len));
      for (int64_t j = 0; j < len; ++j)
        packed_[j] = (uint64_t(sort_key(x[j * stride]) ^ flip) << 32) | uint64_t(j);
      order_first(packed_, keep);
    } else {
      wide_.resize(static_cast<size_t>(len));
      for (int64_t j = 0; j < len; ++j) wide_[j] = {sort_key(x[j * stride]) ^ flip, j};
      order_first(wide_, keep);
    }
  }
  int64_t index(int64_t j) const {
    return packed_mode_ ? static_cast<int64_t>(packed_[j] & 0xffffffffu) : wide_[j].second;
  }

 private:
  bool packed_mode_ = true;
  std::vector<uint64_t> packed_;
  std::vector<std::pair<key_t<T>, int64_t>> wide_;
};

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

// For each slice along dim: order it (Note [Sort keys]) and write the first
// `keep` values and indices.
template <typename scalar_t>
void per_slice(const Tensor& values, const Tensor& indices, const Tensor& self, int64_t dim,
               int64_t keep, bool descending) {
  const int64_t len = self.sizes()[dim];
  SliceIO io = slice_io(values, indices, self, dim);
  char* vb = static_cast<char*>(values.data_ptr());
  char* ib = static_cast<char*>(indices.data_ptr());
  const char* sb = static_cast<const char*>(self.data_ptr());
  const int64_t ss = io.ss / static_cast<int64_t>(sizeof(scalar_t));
  const int64_t vs = io.vs / static_cast<int64_t>(sizeof(scalar_t)), is = io.is / 8;
  for_each_run<3>(io.outer, io.strides, len * 8,
                  [&](int64_t, int64_t n, const std::array<int64_t, 3>& at,
                      const std::array<int64_t, 3>& step) {
    SliceSorter<scalar_t> sorter;
    for (int64_t p = 0; p < n; ++p) {
      const scalar_t* x = reinterpret_cast<const scalar_t*>(sb + at[2] + p * step[2]);
      scalar_t* v = reinterpret_cast<scalar_t*>(vb + at[0] + p * step[0]);
      int64_t* ix = reinterpret_cast<int64_t*>(ib + at[1] + p * step[1]);
      sorter.run(x, ss, len, keep, descending);
      for (int64_t j = 0; j < keep; ++j) {
        const int64_t i = sorter.index(j);
        v[j * vs] = x[i * ss];
        ix[j * is] = i;
      }
    }
  });
}

void sort_slices(const Tensor& values, const Tensor& indices, const Tensor& self, int64_t dim,
                 int64_t keep, bool descending) {
  EMBER_DISPATCH_ALL(self.dtype(), "sort", [&] {
    per_slice<scalar_t>(values, indices, self, dim, keep, descending);
  });
}

void sort_kernel(OpCall& c) { sort_or_topk(c, false, sort_slices); }
void topk_kernel(OpCall& c) { sort_or_topk(c, true, sort_slices); }

// ---- unique --------------------------------------------------------------------------

// Unique elements of the flattened self: sort, then each run of equal values is
// one value (NaN != NaN, so each NaN is its own run, as in PyTorch).
template <typename scalar_t>
void unique_flat(const Tensor& self, Tensor& values, Tensor& inverse, Tensor& counts) {
  using K = opmath_t<scalar_t>;
  const int64_t n = self.numel();
  Tensor flat = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  copy_into(flat, self);  // row-major order
  const scalar_t* x = flat.data_ptr<scalar_t>();
  SliceSorter<scalar_t> sorter;
  sorter.run(x, 1, n, n, false);
  std::vector<int64_t> order(static_cast<size_t>(n)), starts;
  for (int64_t i = 0; i < n; ++i) {
    order[i] = sorter.index(i);
    // equal values (not equal keys) make a run: each NaN stays on its own
    if (i == 0 || !(static_cast<K>(x[order[i]]) == static_cast<K>(x[order[i - 1]])))
      starts.push_back(i);
  }
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
    v[r] = x[order[starts[r]]];
    cnt[r] = end - starts[r];
    for (int64_t i = starts[r]; i < end; ++i) inv[order[i]] = r;
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
  const UniqueArgs a = UniqueArgs::from(c);
  Tensor values, inverse, counts;
  EMBER_DISPATCH_ALL(self.dtype(), "unique", [&] {
    if (!a.dim) unique_flat<scalar_t>(self, values, inverse, counts);
    else unique_dim<scalar_t>(self, *a.dim, values, inverse, counts);
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
