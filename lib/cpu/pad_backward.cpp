// Backward of pad (reflect, replicate, circular; constant is a pad of the
// gradient, lib/ops): every output position adds its gradient into the input
// position it copied (pad_index.h), dims not padded being planes.
#include "kernels/dtype_dispatch.h"
#include "kernels/pad_index.h"
#include "cpu/separable_scatter.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/factories.h"

namespace ember::cpu {
namespace {

void pad_backward_kernel(OpCall& c) {
  const Tensor g = c.in(0).contiguous();
  const PadBackwardArgs args = PadBackwardArgs::from(c);
  const int64_t nd = static_cast<int64_t>(args.input_size.size()), k = static_cast<int64_t>(args.pad.size()) / 2;
  int64_t planes = 1;
  for (int64_t d = 0; d < nd - k; ++d) planes *= args.input_size[d];
  const DType acc_dtype = g.dtype() == kFloat64 ? kFloat64 : kFloat32;
  Tensor acc = zeros(IntList(args.input_size.begin(), args.input_size.end()), TensorOptions(acc_dtype));
  EMBER_DISPATCH_FLOATING(g.dtype(), "pad_backward", [&] {
    using acc_t = opmath_t<scalar_t>;
    std::vector<AxisMap<acc_t>> axes;
    for (int64_t d = nd - k; d < nd; ++d) {
      const int64_t i = nd - 1 - d;  // pad pairs run from the last dim backwards
      AxisMap<acc_t> a;
      a.in = args.input_size[d];
      a.out = g.size(d);
      for (int64_t o = 0; o < a.out; ++o) {
        const int64_t j = pad_source(o, a.in, args.pad[2 * i], args.pad[2 * i + 1], args.mode);
        if (j >= 0) a.add(o, j, acc_t(1));
      }
      axes.push_back(std::move(a));
    }
    if (k == 0 || acc.numel() == 0) return;
    separable_scatter(static_cast<const scalar_t*>(g.data_ptr()), static_cast<acc_t*>(acc.data_ptr()),
                      planes, axes);
  });
  c.outputs.push_back(acc.dtype() == g.dtype() ? acc : acc.to(g.dtype()));
}

EMBER_REGISTER_KERNEL(pad_backward, CPU, pad_backward_kernel);

}  // namespace
}  // namespace ember::cpu
