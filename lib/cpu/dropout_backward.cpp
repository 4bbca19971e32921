// Backward of dropout: grad_output * mask * scale, in opmath. A dropped
// element gives grad * 0 (so a NaN gradient stays NaN, as PyTorch).
#include "cpu/dtype_dispatch.h"
#include "cpu/loops.h"
#include "dispatch/dispatcher.h"
#include "ember/ops/factories.h"

namespace ember::cpu {
namespace {

void dropout_backward_kernel(OpCall& c) {
  const Tensor &g = c.in(0), &mask = c.in(1);
  const double scale = c.attr(0).to_double();
  Tensor out = empty(g.sizes(), TensorOptions(g.dtype()));
  EMBER_DISPATCH_FLOATING(g.dtype(), "native_dropout_backward", [&] {
    using acc_t = opmath_t<scalar_t>;
    const acc_t s = static_cast<acc_t>(scale);
    cpu_kernel(out, {&g, &mask}, [s](scalar_t gi, bool keep) -> scalar_t {
      return convert<scalar_t>(static_cast<acc_t>(gi) * (keep ? s : acc_t(0)));
    });
  });
  c.outputs.push_back(out);
}

EMBER_REGISTER_KERNEL(dropout_backward, CPU, dropout_backward_kernel);

}  // namespace
}  // namespace ember::cpu
