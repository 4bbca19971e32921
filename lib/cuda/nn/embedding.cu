// embedding (rows of a table gathered by index) and one_hot on CUDA, with the CPU
// kernels' outputs (lib/cpu/embedding.cpp). An index outside the table (or a class
// outside [0, num_classes)) is reported through device_error.h and raised as an
// IndexError at the next synchronization; the CPU raises it at once.
#include <algorithm>

#include "kernels/dtype_dispatch.h"
#include "cuda/device_error.h"
#include "cuda/launch.h"
#include "dispatch/args/nn.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"

namespace ember::cuda {
namespace {

// out[i, :] = table[idx[i], :], one thread per output element (rows moved as
// elements of `Bits`, the element's size: the gather does not need the dtype).
template <typename Bits, typename Index>
__global__ void gather_rows_kernel(const Bits* table, const Index* idx, Bits* out, int64_t n, int64_t rows,
                                   int64_t dim, DeviceErrorReporter err) {
  // With dim == 0 each index is still checked (one thread per index), as the CPU does.
  const int64_t width = dim > 0 ? dim : 1;
  const int64_t total = n * width, step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += step) {
    const int64_t i = k / width, d = k % width;
    const int64_t row = static_cast<int64_t>(idx[i]);
    if (row < 0 || row >= rows) {
      if (d == 0) err.report(DeviceErrorKind::IndexOutOfRange, row, rows);
      continue;
    }
    if (dim > 0) out[k] = table[row * dim + d];
  }
}

template <typename Bits>
void gather_rows(const Tensor& weight, const Tensor& idx, Tensor& out, cudaStream_t stream) {
  const int64_t n = idx.numel(), rows = weight.size(0), dim = weight.size(1);
  DeviceErrorReporter err = device_error_reporter(weight.device().index, opid::embedding);
  const Bits* table = static_cast<const Bits*>(weight.data_ptr());
  Bits* dst = static_cast<Bits*>(out.data_ptr());
  const int64_t threads = n * (dim > 0 ? dim : 1);
  if (idx.dtype() == kInt64)
    gather_rows_kernel<Bits, int64_t><<<blocks_for(threads), kBlockThreads, 0, stream>>>(
        table, static_cast<const int64_t*>(idx.data_ptr()), dst, n, rows, dim, err);
  else
    gather_rows_kernel<Bits, int32_t><<<blocks_for(threads), kBlockThreads, 0, stream>>>(
        table, static_cast<const int32_t*>(idx.data_ptr()), dst, n, rows, dim, err);
  EMBER_CUDA_CHECK_LAUNCH();
}

void embedding_kernel(OpCall& c) {
  const Tensor weight = c.in(0).contiguous();
  const Tensor idx = c.in(1).contiguous();
  const int64_t dim = weight.size(1);
  DimVector shape = idx.sizes();
  shape.push_back(dim);
  Tensor out = empty(shape, TensorOptions(weight.dtype()).device(weight.device()));
  if (idx.numel() > 0) {
    LaunchContext ctx(weight);
    switch (weight.element_size()) {
      case 1: gather_rows<uint8_t>(weight, idx, out, ctx.stream); break;
      case 2: gather_rows<uint16_t>(weight, idx, out, ctx.stream); break;
      case 4: gather_rows<uint32_t>(weight, idx, out, ctx.stream); break;
      default: gather_rows<uint64_t>(weight, idx, out, ctx.stream); break;
    }
  }
  c.outputs.push_back(out);
}

// out[i, idx[i]] = 1 over a zero-filled [n, num_classes] output.
__global__ void one_hot_kernel_impl(const int64_t* idx, int64_t* out, int64_t n, int64_t num_classes,
                                    DeviceErrorReporter err) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t v = idx[i];
    if (v < 0 || v >= num_classes) {
      err.report(DeviceErrorKind::IndexOutOfRange, v, num_classes);
      continue;
    }
    out[i * num_classes + v] = 1;
  }
}

void one_hot_kernel(OpCall& c) {
  const Tensor idx = c.in(0).contiguous();
  int64_t num_classes = OneHotArgs::from(c).num_classes;
  const int64_t n = idx.numel();
  if (num_classes == -1) {
    // The output's size depends on the data: the indices are read on the host
    // (a transfer the host waits for), and checked there as the CPU does.
    EMBER_CHECK(n > 0, "one_hot: can not infer the total number of classes from an empty tensor");
    const Tensor host = idx.cpu();
    const int64_t* ip = static_cast<const int64_t*>(host.data_ptr());
    const int64_t lo = *std::min_element(ip, ip + n), hi = *std::max_element(ip, ip + n);
    EMBER_CHECK(lo >= 0, "one_hot: class values must be non-negative, got ", lo);
    num_classes = hi + 1;
  }
  DimVector shape = idx.sizes();
  shape.push_back(num_classes);
  Tensor out = zeros(IntList(shape.begin(), shape.end()), TensorOptions(kInt64).device(idx.device()));
  if (n > 0) {
    LaunchContext ctx(idx);
    one_hot_kernel_impl<<<blocks_for(n), kBlockThreads, 0, ctx.stream>>>(
        static_cast<const int64_t*>(idx.data_ptr()), static_cast<int64_t*>(out.data_ptr()), n, num_classes,
        device_error_reporter(idx.device().index, opid::one_hot));
    EMBER_CUDA_CHECK_LAUNCH();
  }
  c.outputs.push_back(out);
}

EMBER_REGISTER_KERNEL(embedding, CUDA, embedding_kernel);
EMBER_REGISTER_KERNEL(one_hot, CUDA, one_hot_kernel);

}  // namespace
}  // namespace ember::cuda
