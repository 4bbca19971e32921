// unique on CUDA, of all elements or of the slices along a dim (lib/cpu/sort.cpp
// decides the same outputs): sort (Note [Sort keys], CUB's stable radix sort),
// flag where a run of equal values starts (NaN != NaN, so each NaN is its own
// run, as in PyTorch), scan the flags into run numbers, copy the number of runs to
// the host (the output's size depends on the data: the one synchronization of the
// op), then write values, inverse and counts.
#include <cub/cub.cuh>

#include "cuda/device_error.h"
#include "kernels/sort_key.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/restride.h"
#include "cuda/index/positions.cuh"
#include "cuda/sort/radix_sort.h"
#include "dispatch/args/shape_index.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember::cuda {
namespace {

#define EMBER_GRID_STRIDE(i, n)                                                  \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n);      \
       i += int64_t(blockDim.x) * gridDim.x)

__global__ void iota(int64_t* out, int64_t n) {
  EMBER_GRID_STRIDE(i, n) out[i] = i;
}

// keys[i] = the key of row order[i]'s element `col` (rows of `rest` elements).
template <typename T>
__global__ void column_keys(const T* x, const int64_t* order, sort_key_t<T>* keys, int64_t n, int64_t rest,
                            int64_t col) {
  EMBER_GRID_STRIDE(i, n) keys[i] = sort_key(x[order[i] * rest + col]);
}

// flags[i] = 1 where sorted row i starts a run: it differs from row i - 1 (== per
// element, so NaN never equals).
template <typename T>
__global__ void run_starts(const T* x, const int64_t* order, int64_t* flags, int64_t n, int64_t rest) {
  using K = opmath_t<T>;
  EMBER_GRID_STRIDE(i, n) {
    bool start = i == 0;
    for (int64_t e = 0; !start && e < rest; ++e)
      start = !(static_cast<K>(x[order[i] * rest + e]) == static_cast<K>(x[order[i - 1] * rest + e]));
    flags[i] = start ? 1 : 0;
  }
}

// inverse[order[i]] = run of sorted row i; starts[run] = i where a run starts.
__global__ void runs_to_rows(const int64_t* order, const int64_t* flags, const int64_t* runs,
                             int64_t* inverse, int64_t* starts, int64_t n) {
  EMBER_GRID_STRIDE(i, n) {
    const int64_t run = runs[i] - 1;
    inverse[order[i]] = run;
    if (flags[i]) starts[run] = i;
  }
}

__global__ void run_counts(const int64_t* starts, int64_t* counts, int64_t u, int64_t n) {
  EMBER_GRID_STRIDE(r, u) counts[r] = (r + 1 < u ? starts[r + 1] : n) - starts[r];
}

// urows[r, :] = x[order[starts[r]], :] (rows of `rest` elements).
template <typename T>
__global__ void first_rows(const T* x, const int64_t* order, const int64_t* starts, T* urows, int64_t u,
                           int64_t rest) {
  EMBER_GRID_STRIDE(i, u * rest) {
    const int64_t r = i / rest, e = i - r * rest;
    urows[i] = x[order[starts[r]] * rest + e];
  }
}

#undef EMBER_GRID_STRIDE

struct UniqueRows {
  Tensor urows, inverse, counts;  // [u, rest...] (rows' shape), [n], [u]
};

// Unique rows of x ([n, ...] contiguous, n > 0, rows of rest > 0 elements): the
// rows sorted lexicographically (Note [NaN order] per element) by one stable radix
// sort per column, last column first; runs of equal rows merged.
template <typename T>
UniqueRows unique_rows(const Tensor& x, int64_t n, int64_t rest) {
  using K = sort_key_t<T>;
  LaunchContext ctx(x);
  const TensorOptions longs = TensorOptions(kInt64).device(x.device());
  const TensorOptions key_opts = TensorOptions(sizeof(K) == 8 ? kInt64 : kInt32).device(x.device());
  const T* xp = static_cast<const T*>(x.data_ptr());
  Tensor order = empty(IntList{n}, longs), order_next = empty(IntList{n}, longs);
  Tensor keys = empty(IntList{n}, key_opts), keys_sorted = empty(IntList{n}, key_opts);
  const unsigned blocks = blocks_for(n);
  iota<<<blocks, kBlockThreads, 0, ctx.stream>>>(order.data_ptr<int64_t>(), n);
  EMBER_CUDA_CHECK_LAUNCH();
  for (int64_t col = rest - 1; col >= 0; --col) {
    column_keys<T><<<blocks, kBlockThreads, 0, ctx.stream>>>(xp, order.data_ptr<int64_t>(),
                                                             static_cast<K*>(keys.data_ptr()), n, rest, col);
    EMBER_CUDA_CHECK_LAUNCH();
    sort_pairs(x, ctx.stream, static_cast<const K*>(keys.data_ptr()), static_cast<K*>(keys_sorted.data_ptr()),
               order.data_ptr<int64_t>(), order_next.data_ptr<int64_t>(), n, 1);
    std::swap(order, order_next);
  }
  const int64_t* op = order.data_ptr<int64_t>();
  Tensor flags = empty(IntList{n}, longs), runs = empty(IntList{n}, longs);
  run_starts<T><<<blocks, kBlockThreads, 0, ctx.stream>>>(xp, op, flags.data_ptr<int64_t>(), n, rest);
  EMBER_CUDA_CHECK_LAUNCH();
  size_t bytes = 0;
  const int64_t* f = flags.data_ptr<int64_t>();
  int64_t* rp = runs.data_ptr<int64_t>();
  EMBER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, f, rp, n, ctx.stream));
  Tensor temp = scratch(x, bytes);
  EMBER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.data_ptr(), bytes, f, rp, n, ctx.stream));
  // The output's size depends on the data: the host waits for the number of runs here.
  int64_t u = 0;
  EMBER_CUDA_CHECK(cudaMemcpyAsync(&u, rp + n - 1, sizeof u, cudaMemcpyDeviceToHost, ctx.stream));
  EMBER_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
  // The host waited: an error an earlier kernel reported surfaces here, not later.
  raise_device_error(static_cast<int>(x.device().index));
  UniqueRows out;
  out.inverse = empty(IntList{n}, longs);
  out.counts = empty(IntList{u}, longs);
  Tensor starts = empty(IntList{u}, longs);
  runs_to_rows<<<blocks, kBlockThreads, 0, ctx.stream>>>(op, f, rp, out.inverse.data_ptr<int64_t>(),
                                                         starts.data_ptr<int64_t>(), n);
  EMBER_CUDA_CHECK_LAUNCH();
  run_counts<<<blocks_for(u), kBlockThreads, 0, ctx.stream>>>(starts.data_ptr<int64_t>(),
                                                              out.counts.data_ptr<int64_t>(), u, n);
  EMBER_CUDA_CHECK_LAUNCH();
  DimVector urows_sizes = x.sizes();
  urows_sizes[0] = u;
  out.urows = empty(urows_sizes, TensorOptions(x.dtype()).device(x.device()));
  first_rows<T><<<blocks_for(u * rest), kBlockThreads, 0, ctx.stream>>>(
      xp, op, starts.data_ptr<int64_t>(), static_cast<T*>(out.urows.data_ptr()), u, rest);
  EMBER_CUDA_CHECK_LAUNCH();
  return out;
}

// Unique elements of the flattened self: rows of one element of a row-major copy.
template <typename T>
void unique_flat(const Tensor& self, Tensor& values, Tensor& inverse, Tensor& counts) {
  const int64_t n = self.numel();
  const TensorOptions longs = TensorOptions(kInt64).device(self.device());
  if (n == 0) {
    values = empty(IntList{0}, TensorOptions(self.dtype()).device(self.device()));
    counts = empty(IntList{0}, longs);
    inverse = empty(self.sizes(), longs);
    return;
  }
  Tensor flat;  // [n], row-major
  if (self.is_contiguous()) {
    flat = restride(self, {n}, {1}, self.storage_offset());
  } else {
    flat = empty(IntList{n}, TensorOptions(self.dtype()).device(self.device()));
    copy_into(restride(flat, self.sizes(), contiguous_strides(self.sizes()), 0), self);
  }
  UniqueRows r = unique_rows<T>(flat, n, 1);
  values = r.urows;
  counts = r.counts;
  inverse = restride(r.inverse, self.sizes(), contiguous_strides(self.sizes()), 0);
}

// Unique slices along dim: self copied with dim first as rows, then back to self's
// dim order (values: self's shape with u along dim).
template <typename T>
void unique_dim(const Tensor& self, int64_t dim, Tensor& values, Tensor& inverse, Tensor& counts) {
  const int64_t nd = self.dim(), n = self.size(dim);
  DimVector perm_sizes{n}, perm_strides{self.stride(dim)};
  for (int64_t d = 0; d < nd; ++d)
    if (d != dim) {
      perm_sizes.push_back(self.size(d));
      perm_strides.push_back(self.stride(d));
    }
  const TensorOptions opts = TensorOptions(self.dtype()).device(self.device());
  const TensorOptions longs = TensorOptions(kInt64).device(self.device());
  DimVector out_sizes = self.sizes();
  if (n == 0) {  // the op function allows this only when every slice is empty
    out_sizes[dim] = 0;
    values = empty(out_sizes, opts);
    counts = empty(IntList{0}, longs);
    inverse = empty(IntList{0}, longs);
    return;
  }
  Tensor rows = empty(perm_sizes, opts);
  copy_into(rows, restride(self, perm_sizes, perm_strides, self.storage_offset()));
  UniqueRows r = unique_rows<T>(rows, n, rows.numel() / n);
  const int64_t u = r.urows.size(0);
  counts = r.counts;
  inverse = r.inverse;
  out_sizes[dim] = u;
  values = empty(out_sizes, opts);
  DimVector vs = contiguous_strides(out_sizes), pv_strides{vs[dim]};
  for (int64_t d = 0; d < nd; ++d)
    if (d != dim) pv_strides.push_back(vs[d]);
  copy_into(restride(values, r.urows.sizes(), pv_strides, 0), r.urows);
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

EMBER_REGISTER_KERNEL(unique, CUDA, unique_kernel);

}  // namespace
}  // namespace ember::cuda
