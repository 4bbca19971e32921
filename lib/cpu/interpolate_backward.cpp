// Backward of interpolate (nearest and (bi/tri)linear, 1 to 3 spatial dims):
// the forward's own index tables (interpolate_index.h) read backwards, each
// output position adding its gradient (times its weight, for linear) into
// the input positions it read. Planes n * C + c are independent.
#include "kernels/dtype_dispatch.h"
#include "kernels/interpolate_index.h"
#include "cpu/separable_scatter.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/factories.h"

namespace ember::cpu {
namespace {

template <typename Acc>
std::vector<AxisMap<Acc>> interpolate_axes(const InterpolateBackwardArgs& args, const Tensor& g, bool nearest) {
  const int64_t k = static_cast<int64_t>(args.input_size.size()) - 2;
  std::vector<AxisMap<Acc>> axes;
  for (int64_t d = 0; d < k; ++d) {
    AxisMap<Acc> a;
    a.in = args.input_size[2 + d];
    a.out = g.size(2 + d);
    if (nearest) {
      const std::vector<int64_t> idx = nearest_indices(a.in, a.out, args.scales[d], k == 2);
      for (int64_t o = 0; o < a.out; ++o) a.add(o, idx[o], Acc(1));
    } else {
      const LinearTable<Acc> t = linear_table<Acc>(a.in, a.out, args.align_corners, args.scales[d]);
      for (int64_t o = 0; o < a.out; ++o) {
        a.add(o, t.i0[o], t.w0[o]);
        a.add(o, t.i1[o], t.w1[o]);
      }
    }
    axes.push_back(std::move(a));
  }
  return axes;
}

void interpolate_backward_kernel(OpCall& c) {
  const Tensor g = c.in(0).contiguous();
  const InterpolateBackwardArgs args = InterpolateBackwardArgs::from(c);
  const bool nearest = args.mode == "nearest";
  const DType acc_dtype = g.dtype() == kFloat64 ? kFloat64 : kFloat32;
  Tensor acc = zeros(IntList(args.input_size.begin(), args.input_size.end()), TensorOptions(acc_dtype));
  EMBER_DISPATCH_FLOATING(g.dtype(), "interpolate_backward", [&] {
    using acc_t = opmath_t<scalar_t>;
    if (acc.numel() == 0 || g.numel() == 0) return;
    const std::vector<AxisMap<acc_t>> axes = interpolate_axes<acc_t>(args, g, nearest);
    separable_scatter(static_cast<const scalar_t*>(g.data_ptr()), static_cast<acc_t*>(acc.data_ptr()),
                      args.input_size[0] * args.input_size[1], axes);
  });
  c.outputs.push_back(acc.dtype() == g.dtype() ? acc : acc.to(g.dtype()));
}

EMBER_REGISTER_KERNEL(interpolate_backward, CPU, interpolate_backward_kernel);

}  // namespace
}  // namespace ember::cpu
