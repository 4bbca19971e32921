// searchsorted on the CPU: one binary search per value (lib/kernels/binary_search.h), in
// parallel over the values. A 1-d sequence serves every value; otherwise value i
// searches row i / N of the sequence (N: the values' last size).
#include "kernels/binary_search.h"
#include "kernels/dtype_dispatch.h"
#include "cpu/parallel.h"
#include "dispatch/args/shape_index.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/shape_index.h"
#include "ember/ops/factories.h"

namespace ember::cpu {
namespace {

template <typename Out, typename T>
void search_all(const T* seq, const T* values, Out* out, int64_t count, int64_t M, int64_t N,
                bool shared_row, bool right) {
  parallel_for(0, count, 2048, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const T* row = shared_row ? seq : seq + (i / N) * M;
      out[i] = static_cast<Out>(sorted_position(row, M, static_cast<opmath_t<T>>(values[i]), right));
    }
  });
}

void searchsorted_kernel(OpCall& c) {
  const Tensor& seq = c.in(0);
  const Tensor& values = c.in(1);
  const SearchsortedArgs a = SearchsortedArgs::from(c);
  Tensor out = empty(values.sizes(), TensorOptions(a.out_int32 ? kInt32 : kInt64));
  const int64_t M = seq.dim() ? seq.size(-1) : 1;
  const int64_t N = values.dim() ? values.size(-1) : 1;
  const bool shared_row = seq.dim() <= 1;
  if (values.numel() > 0) {
    EMBER_DISPATCH_ALL(seq.dtype(), "searchsorted", [&] {
      const auto* s = static_cast<const scalar_t*>(seq.data_ptr());
      const auto* v = static_cast<const scalar_t*>(values.data_ptr());
      if (a.out_int32)
        search_all(s, v, static_cast<int32_t*>(out.data_ptr()), values.numel(), M, N, shared_row,
                   a.right);
      else
        search_all(s, v, static_cast<int64_t*>(out.data_ptr()), values.numel(), M, N, shared_row,
                   a.right);
    });
  }
  c.outputs.push_back(out);
}

EMBER_REGISTER_KERNEL(searchsorted, CPU, searchsorted_kernel);

}  // namespace
}  // namespace ember::cpu
