// CPU kernels of the inclusive scans cumsum and cumprod along one dim.
//
// The input (made contiguous) is seen as [outer, D, inner]. With inner == 1
// each row is scanned on its own; otherwise whole rows of `inner` elements are
// accumulated at once, which vectorizes and reads memory in order. Floats
// accumulate in double (float16/bfloat16 in float), as PyTorch does on CPU.
#include "kernels/dtype_dispatch.h"
#include "cpu/reduce_math.h"
#include "cpu/parallel.h"
#include "kernels/reduce_meta.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"

namespace ember::cpu {
namespace {

template <typename T>
using scan_acc_t = std::conditional_t<is_reduced_float_v<T>, float,
                   std::conditional_t<std::is_floating_point_v<T>, double, int64_t>>;

template <typename T, typename In, typename Op>
void scan_lines(const In* x, T* out, int64_t outer, int64_t D, int64_t inner, const Op& op,
                scan_acc_t<T> init) {
  using A = scan_acc_t<T>;
  if (inner == 1) {
    parallel_for(0, outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(D, 1)),
                 [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) {
        A acc = init;
        const In* src = x + o * D;
        T* dst = out + o * D;
        for (int64_t d = 0; d < D; ++d) {
          acc = op(acc, load<A>(src[d]));
          dst[d] = store<T>(acc);
        }
      }
    });
    return;
  }
  constexpr int64_t kTile = 1024;
  const int64_t tiles_per_row = (inner + kTile - 1) / kTile;
  parallel_for(0, outer * tiles_per_row, std::max<int64_t>(1, kGrainSize / (D * kTile)),
               [&](int64_t t0, int64_t t1) {
    A acc[kTile];
    for (int64_t t = t0; t < t1; ++t) {
      int64_t o = t / tiles_per_row, j0 = (t % tiles_per_row) * kTile;
      int64_t w = std::min(kTile, inner - j0);
      for (int64_t j = 0; j < w; ++j) acc[j] = init;
      for (int64_t d = 0; d < D; ++d) {
        const In* src = x + (o * D + d) * inner + j0;
        T* dst = out + (o * D + d) * inner + j0;
        for (int64_t j = 0; j < w; ++j) {
          acc[j] = op(acc[j], load<A>(src[j]));
          dst[j] = store<T>(acc[j]);
        }
      }
    }
  });
}

template <bool Sum>
void scan_kernel(OpCall& c) {
  const char* name = Sum ? "cumsum" : "cumprod";
  const ReduceMeta m = reduce_meta(c);  // x: contiguous, cast first (integers: read into int64)
  const Tensor &self = c.in(0), &x = m.x, &out = m.outputs[0];
  const int64_t dim = m.dims[0];
  const DType out_dtype = out.dtype();
  int64_t outer = 1, D = 1, inner = 1;
  for (int64_t d = 0; d < self.dim(); ++d)
    (d < dim ? outer : d == dim ? D : inner) *= self.sizes()[d];
  if (out.numel() > 0) {
    EMBER_DISPATCH_ALL(out_dtype, name, [&] {
      using T = scalar_t;
      using A = scan_acc_t<T>;
      auto op = [](A a, A b) { return Sum ? a + b : a * b; };
      T* po = static_cast<T*>(out.data_ptr());
      if (x.dtype() == out_dtype) {
        scan_lines<T>(static_cast<const T*>(x.data_ptr()), po, outer, D, inner, op, A(Sum ? 0 : 1));
      } else if constexpr (std::is_same_v<T, int64_t>) {
        EMBER_DISPATCH_INTEGRAL(x.dtype(), name, [&] {
          scan_lines<T>(static_cast<const scalar_t*>(x.data_ptr()), po, outer, D, inner, op,
                        A(Sum ? 0 : 1));
        });
      }
    });
  }
  m.finish(c);
}

EMBER_REGISTER_KERNEL(cumsum, CPU, scan_kernel<true>);
EMBER_REGISTER_KERNEL(cumprod, CPU, scan_kernel<false>);

}  // namespace
}  // namespace ember::cpu
