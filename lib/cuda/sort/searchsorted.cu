// searchsorted on CUDA: one thread per value, each a binary search
// (lib/kernels/binary_search.h) in the sequence's row (a 1-d sequence serves every value;
// otherwise value i searches row i / N). Grid-stride, int64 indices.
#include "kernels/binary_search.h"
#include "kernels/dtype_dispatch.h"
#include "cuda/launch.h"
#include "dispatch/args/shape_index.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/shape_index.h"
#include "ember/ops/factories.h"

namespace ember::cuda {
namespace {

template <typename Out, typename T>
__global__ void searchsorted_impl(const T* seq, const T* values, Out* out, int64_t count, int64_t M,
                                  int64_t N, bool shared_row, bool right) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const T* row = shared_row ? seq : seq + (i / N) * M;
    out[i] = static_cast<Out>(sorted_position(row, M, static_cast<opmath_t<T>>(values[i]), right));
  }
}

void searchsorted_kernel(OpCall& c) {
  const Tensor& seq = c.in(0);
  const Tensor& values = c.in(1);
  const SearchsortedArgs a = SearchsortedArgs::from(c);
  Tensor out = empty(values.sizes(), TensorOptions(a.out_int32 ? kInt32 : kInt64).device(values.device()));
  const int64_t count = values.numel();
  const int64_t M = seq.dim() ? seq.size(-1) : 1;
  const int64_t N = values.dim() ? values.size(-1) : 1;
  const bool shared_row = seq.dim() <= 1;
  if (count > 0) {
    LaunchContext ctx(values);
    EMBER_DISPATCH_ALL(seq.dtype(), "searchsorted", [&] {
      const auto* s = static_cast<const scalar_t*>(seq.data_ptr());
      const auto* v = static_cast<const scalar_t*>(values.data_ptr());
      if (a.out_int32)
        searchsorted_impl<int32_t, scalar_t><<<blocks_for(count), kBlockThreads, 0, ctx.stream>>>(
            s, v, static_cast<int32_t*>(out.data_ptr()), count, M, N, shared_row, a.right);
      else
        searchsorted_impl<int64_t, scalar_t><<<blocks_for(count), kBlockThreads, 0, ctx.stream>>>(
            s, v, static_cast<int64_t*>(out.data_ptr()), count, M, N, shared_row, a.right);
      EMBER_CUDA_CHECK_LAUNCH();
    });
  }
  c.outputs.push_back(out);
}

EMBER_REGISTER_KERNEL(searchsorted, CUDA, searchsorted_kernel);

}  // namespace
}  // namespace ember::cuda
