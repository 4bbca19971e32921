// nonzero and masked_fill_ on CUDA (lib/cpu/index.cpp has the same rules).
//
// nonzero's output size depends on the data: flags of the nonzero elements (in
// row-major order), an inclusive scan of them (CUB) giving each one its row, the
// count copied to the host (the one synchronization of the op), then the
// coordinates written from the scan.
#include <cub/cub.cuh>

#include "cuda/device_error.h"
#include "kernels/dtype_dispatch.h"
#include "cuda/index/positions.cuh"
#include "cuda/loops.cuh"
#include "cuda/strided_kernels.h"
#include "dispatch/args/shape_index.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember::cuda {
namespace {

struct ShapeArg {
  int nd;
  int64_t sizes[kMaxStridedDims];
};

// out[pos[i] - 1, :] = the coordinates of row-major position i, for each nonzero i.
__global__ void nonzero_coordinates(const int64_t* flags, const int64_t* pos, int64_t* out,
                                    int64_t numel, ShapeArg shape) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < numel;
       i += int64_t(blockDim.x) * gridDim.x) {
    if (!flags[i]) continue;
    int64_t* row = out + (pos[i] - 1) * shape.nd;
    int64_t rest = i;
    for (int d = shape.nd - 1; d >= 0; --d) {
      row[d] = rest % shape.sizes[d];
      rest /= shape.sizes[d];
    }
  }
}

void nonzero_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const int64_t nd = self.dim(), numel = self.numel();
  const TensorOptions longs = TensorOptions(kInt64).device(self.device());
  if (numel == 0) {
    c.outputs.push_back(empty(IntList{0, nd}, longs));
    return;
  }
  EMBER_CHECK_AS(NotImplementedError, nd <= kMaxStridedDims, "nonzero on CUDA: tensors of more than ",
                 kMaxStridedDims, " dims are not supported (", describe(self), ")");
  LaunchContext ctx(self);
  Tensor flags = empty(IntList{numel}, longs), pos = empty(IntList{numel}, longs);
  // flags over self's shape: contiguous, row-major.
  ByteStrides flag_strides(static_cast<size_t>(nd));
  for (int64_t d = nd - 1, s = 8; d >= 0; --d) {
    flag_strides[d] = s;
    s *= self.size(d);
  }
  EMBER_DISPATCH_ALL(self.dtype(), "nonzero", [&] {
    for_each_position<2>(ctx.stream, self.sizes(), {flag_strides, byte_strides(self)},
                         {bytes_of(flags), bytes_of(self)}, [] __device__(char* const(&p)[2]) {
      *reinterpret_cast<int64_t*>(p[0]) = convert<bool>(*reinterpret_cast<const scalar_t*>(p[1])) ? 1 : 0;
    });
  });
  const int64_t* f = flags.data_ptr<int64_t>();
  int64_t* ps = pos.data_ptr<int64_t>();
  size_t bytes = 0;
  EMBER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, f, ps, numel, ctx.stream));
  Tensor temp = scratch(self, bytes);
  EMBER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.data_ptr(), bytes, f, ps, numel, ctx.stream));
  // The output's size depends on the data: the host waits for the count here.
  int64_t count = 0;
  EMBER_CUDA_CHECK(cudaMemcpyAsync(&count, ps + numel - 1, sizeof count, cudaMemcpyDeviceToHost,
                                   ctx.stream));
  EMBER_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
  // The host waited: an error an earlier kernel reported surfaces here, not later.
  raise_device_error(static_cast<int>(self.device().index));
  Tensor out = empty(IntList{count, nd}, longs);
  if (count > 0 && nd > 0) {
    ShapeArg shape{static_cast<int>(nd), {}};
    for (int64_t d = 0; d < nd; ++d) shape.sizes[d] = self.size(d);
    nonzero_coordinates<<<blocks_for(numel), kBlockThreads, 0, ctx.stream>>>(
        f, ps, out.data_ptr<int64_t>(), numel, shape);
    EMBER_CUDA_CHECK_LAUNCH();
  }
  c.outputs.push_back(out);
}

void masked_fill_kernel(OpCall& c) {
  const Tensor& self = c.outputs[0];
  const Tensor& mask = c.in(1);
  const MaskedFillArgs a = MaskedFillArgs::from(c);
  EMBER_DISPATCH_ALL(self.dtype(), "masked_fill_", [&] {
    using O = opmath_t<scalar_t>;
    const O value = static_cast<O>(a.value.to<scalar_t>());
    gpu_kernel<scalar_t, scalar_t, bool>(self, {&self, &mask},
                                         [value] EMBER_LAMBDA(O x, bool m) { return m ? value : x; });
  });
}

EMBER_REGISTER_KERNEL(nonzero, CUDA, nonzero_kernel);
EMBER_REGISTER_KERNEL(masked_fill_, CUDA, masked_fill_kernel);

}  // namespace
}  // namespace ember::cuda
