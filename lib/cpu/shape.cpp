// Kernels that rearrange whole tensors: cat, flip, tril, triu. cat and flip are
// copies between restrided views (done by the copy_ kernel, which casts and
// vectorizes); tril/triu keep or zero each element of the last two dims.
#include <algorithm>
#include <type_traits>

#include "cpu/index_loops.h"
#include "kernels/shape_copies.h"
#include "ember/ops/factories.h"
#include "dispatch/args/shape_index.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember::cpu {

namespace {

// out[..., i, j] = keep(j - i) ? self[..., i, j] : 0 over the rows of the last two dims.
template <bool Lower>
void triangle_kernel(OpCall& c) {
  using Args = std::conditional_t<Lower, TrilArgs, TriuArgs>;
  const Tensor& self = c.in(0);
  const Args a = Args::from(c);
  Tensor out = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  const int64_t nd = self.dim(), rows = self.sizes()[nd - 2], cols = self.sizes()[nd - 1];
  DimVector row_sizes(self.sizes().begin(), self.sizes().end() - 1);
  DimVector out_strides = byte_strides_without(out, nd - 1);
  DimVector in_strides = byte_strides_without(self, nd - 1);
  const int64_t os = out.strides()[nd - 1], is = self.strides()[nd - 1];
  char* ob = static_cast<char*>(out.data_ptr());
  const char* ib = static_cast<const char*>(self.data_ptr());
  // The diagonal k clamped so that i + k cannot overflow; beyond the matrix it changes nothing.
  const int64_t kk = std::clamp<int64_t>(a.diagonal, -(rows + 1), cols + 1);
  with_element_size(self.element_size(), [&](auto tag) {
    using T = decltype(tag);
    for_each_run<2>(row_sizes, {out_strides, in_strides}, cols,
                    [&](int64_t first, int64_t n, const std::array<int64_t, 2>& at,
                        const std::array<int64_t, 2>& step) {
      for (int64_t p = 0; p < n; ++p) {
        const int64_t i = (first + p) % rows;
        T* o = reinterpret_cast<T*>(ob + at[0] + p * step[0]);
        const T* in = reinterpret_cast<const T*>(ib + at[1] + p * step[1]);
        // tril keeps j <= i + k, triu keeps j >= i + k; all-zero bits are 0 in every dtype
        const int64_t split = std::clamp<int64_t>(i + kk + (Lower ? 1 : 0), 0, cols);
        const int64_t from = Lower ? 0 : split, to = Lower ? split : cols;
        for (int64_t j = 0; j < from; ++j) o[j * os] = T{0};
        for (int64_t j = from; j < to; ++j) o[j * os] = in[j * is];
        for (int64_t j = to; j < cols; ++j) o[j * os] = T{0};
      }
    });
  });
  c.outputs.push_back(out);
}

EMBER_REGISTER_KERNEL(cat, CPU, cat_kernel);
EMBER_REGISTER_KERNEL(flip, CPU, flip_kernel);
EMBER_REGISTER_KERNEL(tril, CPU, triangle_kernel<true>);
EMBER_REGISTER_KERNEL(triu, CPU, triangle_kernel<false>);

}  // namespace
}  // namespace ember::cpu
