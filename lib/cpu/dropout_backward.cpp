// Backward of dropout: grad_output * mask * scale, in opmath. A dropped
// element gives grad * 0 (so a NaN gradient stays NaN, as PyTorch). With a
// contiguous mask (native_dropout's; the grad is made contiguous) the mask is
// read as bytes (0 / 1) turned into a factor, which vectorizes; anything else
// goes through cpu_kernel.
#include "kernels/dtype_dispatch.h"
#include "cpu/loops.h"
#include "cpu/nn_common.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/factories.h"

namespace ember::cpu {
namespace {

template <typename T>
EMBER_CLONES void masked_scale(const T* g, const uint8_t* mask, T* out, int64_t n, opmath_t<T> scale) {
  using acc_t = opmath_t<T>;
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = convert<T>(static_cast<acc_t>(g[i]) * (static_cast<acc_t>(mask[i]) * scale));
}

void dropout_backward_kernel(OpCall& c) {
  const Tensor& mask = c.in(1);
  // The mask is native_dropout's (contiguous): a strided grad is copied, which
  // beats a strided loop.
  const Tensor g = mask.is_contiguous() ? c.in(0).contiguous() : c.in(0);
  const DropoutBackwardArgs a = DropoutBackwardArgs::from(c);
  Tensor out = empty(g.sizes(), TensorOptions(g.dtype()));
  EMBER_DISPATCH_FLOATING(g.dtype(), "native_dropout_backward", [&] {
    using acc_t = opmath_t<scalar_t>;
    const acc_t s = static_cast<acc_t>(a.scale);
    if (g.is_contiguous() && mask.is_contiguous()) {
      const scalar_t* gp = static_cast<const scalar_t*>(g.data_ptr());
      const uint8_t* mp = static_cast<const uint8_t*>(mask.data_ptr());  // bool: one byte, 0 or 1
      scalar_t* op = static_cast<scalar_t*>(out.data_ptr());
      parallel_for(0, g.numel(), kGrainSize, [&](int64_t b, int64_t e) { masked_scale(gp + b, mp + b, op + b, e - b, s); });
      return;
    }
    cpu_kernel(out, {&g, &mask}, [s](scalar_t gi, bool keep) -> scalar_t {
      return convert<scalar_t>(static_cast<acc_t>(gi) * (keep ? s : acc_t(0)));
    });
  });
  c.outputs.push_back(out);
}

EMBER_REGISTER_KERNEL(dropout_backward, CPU, dropout_backward_kernel);

}  // namespace
}  // namespace ember::cpu
