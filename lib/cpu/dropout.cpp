// Dropout: keeps each element with probability 1 - p, scaling it by 1 / (1 - p),
// and returns the mask (bool, true = kept) that the backward will reuse.
// Random bits come from the default generator's Philox stream: group g of 4
// consecutive elements (row-major) uses the four words of
// philox(seed, offset + g), so the result does not depend on threading.
#include "kernels/philox.h"
#include "kernels/dtype_dispatch.h"
#include "cpu/parallel.h"
#include "dispatch/args/nn.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "ember/generator.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"

namespace ember::cpu {
namespace {

void dropout_kernel(OpCall& c) {
  const Tensor& input = c.in(0);
  const DropoutArgs a = DropoutArgs::from(c);
  const bool preset = c.has_preset_output();
  Tensor out = preset ? c.outputs[0] : empty(input.sizes(), TensorOptions(input.dtype()));
  Tensor x = input.contiguous();
  Tensor dense = out.is_contiguous() ? out : empty(input.sizes(), TensorOptions(input.dtype()));
  Tensor mask = empty(input.sizes(), TensorOptions(kBool));
  const int64_t n = input.numel(), groups = (n + 3) / 4;
  const PhiloxState stream = default_generator().reserve(static_cast<uint64_t>(groups));
  const uint64_t key = stream.seed, offset = stream.offset;
  // keep when the 32-bit word >= p * 2^32: probability 1 - p (p = 1 keeps nothing).
  const uint64_t threshold = philox_sample::dropout_threshold(a.p);
  const double scale = a.p < 1.0 ? 1.0 / (1.0 - a.p) : 0.0;
  EMBER_DISPATCH_FLOATING(input.dtype(), "dropout", [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    scalar_t* yp = static_cast<scalar_t*>(dense.data_ptr());
    bool* mp = static_cast<bool*>(mask.data_ptr());
    const acc_t s = static_cast<acc_t>(scale);
    parallel_for(0, groups, kGrainSize / 16, [&](int64_t g0, int64_t g1) {
      for (int64_t g = g0; g < g1; ++g) {
        const PhiloxWords w = philox4x32(key, 0, offset + static_cast<uint64_t>(g));
        const int64_t end = std::min<int64_t>(4, n - g * 4);
        for (int64_t k = 0; k < end; ++k) {
          const int64_t i = g * 4 + k;
          const bool keep = w[k] >= threshold;
          mp[i] = keep;
          // x * 0 (not a literal 0) where dropped: NaN stays NaN, as in PyTorch.
          yp[i] = convert<scalar_t>(static_cast<acc_t>(xp[i]) * (keep ? s : acc_t(0)));
        }
      }
    });
  });
  if (!dense.is_same(out)) copy_(out, dense);
  if (!preset) c.outputs.push_back(out);
  c.outputs.push_back(mask);
}

EMBER_REGISTER_KERNEL(dropout, CPU, dropout_kernel);

}  // namespace
}  // namespace ember::cpu
