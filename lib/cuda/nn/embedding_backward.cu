// Backward of embedding on CUDA: grad_weight[r] = sum of the grad_output rows
// whose index is r (padding_idx left out; scale_grad_by_freq divides by the count),
// deterministic as the CPU kernel (lib/cpu/embedding_backward.cpp): the positions
// are sorted by index with CUB's radix sort, which is stable, so each table row is
// summed by one thread per column in position order, with no atomics: the very
// sums of the CPU. A row hit n times costs that thread n steps (a hot row is slow,
// never wrong). An index outside [0, rows) is reported through device_error.h
// (IndexError at the next synchronization) and left out of the sums.
#include <cub/device/device_radix_sort.cuh>

#include "kernels/dtype_dispatch.h"
#include "cuda/device_error.h"
#include "cuda/launch.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"

namespace ember::cuda {
namespace {

// key[i] = idx[i], or `rows` (sorted last, skipped) for padding_idx and bad indices.
template <typename Index>
__global__ void make_keys_kernel(const Index* idx, uint64_t* keys, int64_t* positions, int64_t n, int64_t rows,
                                 int64_t padding_idx, DeviceErrorReporter err) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t v = static_cast<int64_t>(idx[i]);
    const bool bad = v < 0 || v >= rows;
    if (bad) err.report(DeviceErrorKind::IndexOutOfRange, v, rows);
    keys[i] = static_cast<uint64_t>(bad || v == padding_idx ? rows : v);
    positions[i] = i;
  }
}

// One thread per (sorted position q, column d): the first position of each key's
// run sums the run's gradient rows in position order and writes the table row.
template <typename T>
__global__ void sum_rows_kernel(const T* g, const uint64_t* keys, const int64_t* positions, T* out, int64_t n,
                                int64_t rows, int64_t D, bool by_freq) {
  using acc_t = opmath_t<T>;
  const int64_t total = n * D, step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += step) {
    const int64_t q = k / D, d = k % D;
    const uint64_t key = keys[q];
    if (key >= static_cast<uint64_t>(rows) || (q > 0 && keys[q - 1] == key)) continue;
    acc_t acc = 0;
    int64_t e = q;
    for (; e < n && keys[e] == key; ++e) acc += static_cast<acc_t>(g[positions[e] * D + d]);
    const acc_t s = by_freq ? acc_t(1) / static_cast<acc_t>(e - q) : acc_t(1);
    out[static_cast<int64_t>(key) * D + d] = convert<T>(acc * s);
  }
}

// Bits needed for keys in [0, rows].
int key_bits(int64_t rows) {
  int bits = 1;
  while (bits < 64 && (uint64_t(1) << bits) <= static_cast<uint64_t>(rows)) ++bits;
  return bits;
}

void embedding_backward_kernel(OpCall& c) {
  const Tensor idx = c.in(1).contiguous();
  const EmbeddingBackwardArgs a = EmbeddingBackwardArgs::from(c);
  const int64_t n = idx.numel();
  const int64_t D = c.in(0).size(-1);
  const Tensor g = c.in(0).contiguous();
  const Device dev = g.device();
  Tensor out = zeros({a.num_weights, D}, TensorOptions(g.dtype()).device(dev));
  c.outputs.push_back(out);
  if (n == 0) return;
  const TensorOptions i64 = TensorOptions(kInt64).device(dev);
  Tensor keys = empty({n}, i64), sorted_keys = empty({n}, i64);
  Tensor positions = empty({n}, i64), sorted_positions = empty({n}, i64);
  LaunchContext ctx(g);
  DeviceErrorReporter err = device_error_reporter(dev.index, opid::embedding_backward);
  uint64_t* kp = static_cast<uint64_t*>(keys.data_ptr());
  int64_t* pp = static_cast<int64_t*>(positions.data_ptr());
  if (idx.dtype() == kInt64)
    make_keys_kernel<int64_t><<<blocks_for(n), kBlockThreads, 0, ctx.stream>>>(
        static_cast<const int64_t*>(idx.data_ptr()), kp, pp, n, a.num_weights, a.padding_idx, err);
  else
    make_keys_kernel<int32_t><<<blocks_for(n), kBlockThreads, 0, ctx.stream>>>(
        static_cast<const int32_t*>(idx.data_ptr()), kp, pp, n, a.num_weights, a.padding_idx, err);
  EMBER_CUDA_CHECK_LAUNCH();
  if (D == 0 || a.num_weights == 0) return;  // nothing to sum (the indices were still checked)

  uint64_t* skp = static_cast<uint64_t*>(sorted_keys.data_ptr());
  int64_t* spp = static_cast<int64_t*>(sorted_positions.data_ptr());
  const int end_bit = key_bits(a.num_weights);
  size_t temp_bytes = 0;
  EMBER_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, kp, skp, pp, spp, n, 0, end_bit, ctx.stream));
  Tensor temp = empty({static_cast<int64_t>(temp_bytes) + 1}, TensorOptions(kUInt8).device(dev));
  EMBER_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data_ptr(), temp_bytes, kp, skp, pp, spp, n, 0, end_bit,
                                                   ctx.stream));

  EMBER_DISPATCH_FLOATING(g.dtype(), "embedding_dense_backward", [&] {
    sum_rows_kernel<scalar_t><<<blocks_for(n * D), kBlockThreads, 0, ctx.stream>>>(
        static_cast<const scalar_t*>(g.data_ptr()), skp, spp, static_cast<scalar_t*>(out.data_ptr()), n,
        a.num_weights, D, a.scale_grad_by_freq);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

EMBER_REGISTER_KERNEL(embedding_backward, CUDA, embedding_backward_kernel);

}  // namespace
}  // namespace ember::cuda
