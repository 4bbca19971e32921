// sort and topk on CUDA (lib/cpu/sort.cpp decides the same outputs).
//
// The slices along dim are moved to the last dim of a contiguous copy, each
// element becomes its Note [Sort keys] (kernels/sort_key.h; ~key when descending, so
// NaN, the largest, sorts last ascending and first descending), and CUB's stable
// radix sort orders (key, index) pairs per slice (radix_sort.h). Ties keep the
// lower index first whatever `stable` says, as on the CPU. topk is the sort's
// first k of each slice, always in order (as on the CPU, `sorted` changes
// nothing): simple, and O(n log n) where a selection would be O(n).
#include "kernels/sort_key.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/restride.h"
#include "kernels/sort_outputs.h"
#include "cuda/index/positions.cuh"
#include "cuda/sort/radix_sort.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember::cuda {
namespace {

template <typename T>
__global__ void make_keys(const T* x, sort_key_t<T>* keys, int64_t* index, int64_t n, int64_t len,
                          sort_key_t<T> flip) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += int64_t(blockDim.x) * gridDim.x) {
    keys[i] = sort_key(x[i]) ^ flip;
    index[i] = i % len;
  }
}

// The first `keep` of each slice of `len`: values[s, j] = x[s, order[s, j]],
// indices[s, j] = order[s, j], for s < n / len.
template <typename T>
__global__ void take_first(const T* x, const int64_t* order, T* values, int64_t* indices, int64_t n_out,
                           int64_t len, int64_t keep) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n_out;
       i += int64_t(blockDim.x) * gridDim.x) {
    const int64_t s = i / keep, j = i - s * keep;
    const int64_t at = order[s * len + j];
    values[i] = x[s * len + at];
    indices[i] = at;
  }
}

// t's geometry with dim moved last: sizes and strides (elements).
struct Moved {
  DimVector sizes, strides;
};

Moved dim_last(const Tensor& t, int64_t dim) {
  Moved m;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (d != dim) {
      m.sizes.push_back(t.size(d));
      m.strides.push_back(t.stride(d));
    }
  m.sizes.push_back(t.size(dim));
  m.strides.push_back(t.stride(dim));
  return m;
}

// values/indices (fresh, of self's shape with `keep` along dim) get the first
// keep of each sorted slice of self along dim.
template <typename T>
void sorted_slices(const Tensor& values, const Tensor& indices, const Tensor& self, int64_t dim,
                   int64_t keep, bool descending) {
  using K = sort_key_t<T>;
  LaunchContext ctx(self);
  const TensorOptions opts = TensorOptions(self.dtype()).device(self.device());
  const TensorOptions longs = TensorOptions(kInt64).device(self.device());
  const int64_t n = self.numel(), len = self.size(dim), segments = n / len;
  // Slices along the last dim, contiguous.
  const Moved in = dim_last(self, dim);
  Tensor x = self;
  if (dim != self.dim() - 1 || !self.is_contiguous()) {
    x = empty(in.sizes, opts);
    copy_into(x, restride(self, in.sizes, in.strides, self.storage_offset()));
  }
  const TensorOptions key_opts = TensorOptions(sizeof(K) == 8 ? kInt64 : kInt32).device(self.device());
  Tensor keys = empty(IntList{n}, key_opts), sorted_keys = empty(IntList{n}, key_opts);
  Tensor order_in = empty(IntList{n}, longs), order = empty(IntList{n}, longs);
  const K flip = descending ? ~K(0) : K(0);
  make_keys<T><<<blocks_for(n), kBlockThreads, 0, ctx.stream>>>(
      static_cast<const T*>(x.data_ptr()), static_cast<K*>(keys.data_ptr()),
      order_in.data_ptr<int64_t>(), n, len, flip);
  EMBER_CUDA_CHECK_LAUNCH();
  sort_pairs(self, ctx.stream, static_cast<const K*>(keys.data_ptr()), static_cast<K*>(sorted_keys.data_ptr()),
             order_in.data_ptr<int64_t>(), order.data_ptr<int64_t>(), n, segments);
  // The first keep of each slice, in the moved layout, then into the outputs.
  const Moved vm = dim_last(values, dim), im = dim_last(indices, dim);
  const bool direct = dim == values.dim() - 1;  // the outputs are fresh, contiguous
  Tensor v = direct ? values : empty(vm.sizes, opts);
  Tensor ix = direct ? indices : empty(im.sizes, longs);
  const int64_t n_out = segments * keep;
  if (n_out > 0) {
    take_first<T><<<blocks_for(n_out), kBlockThreads, 0, ctx.stream>>>(
        static_cast<const T*>(x.data_ptr()), order.data_ptr<int64_t>(), static_cast<T*>(v.data_ptr()),
        ix.data_ptr<int64_t>(), n_out, len, keep);
    EMBER_CUDA_CHECK_LAUNCH();
  }
  if (!direct) {
    copy_into(restride(values, vm.sizes, vm.strides, values.storage_offset()), v);
    copy_into(restride(indices, im.sizes, im.strides, indices.storage_offset()), ix);
  }
}

void sort_slices(const Tensor& values, const Tensor& indices, const Tensor& self, int64_t dim,
                 int64_t keep, bool descending) {
  EMBER_DISPATCH_ALL(self.dtype(), "sort", [&] {
    sorted_slices<scalar_t>(values, indices, self, dim, keep, descending);
  });
}

// The outputs as on the CPU (kernels/sort_outputs.h): topk's k best of each slice in
// order (largest: NaN first, then descending), ties keeping the lower index first.
void sort_kernel(OpCall& c) { sort_or_topk(c, false, sort_slices); }
void topk_kernel(OpCall& c) { sort_or_topk(c, true, sort_slices); }

EMBER_REGISTER_KERNEL(sort, CUDA, sort_kernel);
EMBER_REGISTER_KERNEL(topk, CUDA, topk_kernel);

}  // namespace
}  // namespace ember::cuda
