// The hand-written invokers of the linalg group: only the rows the generator
// cannot express (invoker = "manual" in lib/dispatch/schema/linalg.toml). The rest
// (mm, bmm, mv, dot, addmm, conv2d, conv_transpose2d, max_pool2d, avg_pool2d,
// adaptive_avg_pool2d) are generated from their rows into
// build/generated/jit/invokers_linalg.cpp (lib/dispatch/codegen/gen_ops.py). Each
// runs through its public function (include/ember/ops/linalg.h) so its rank, dtype
// and size checks guard nodes read from a model file.
//
// The op functions (lib/ops/linalg.cpp, conv.cpp, pool.cpp) record normalized
// arguments: a batched 4-d input (an unbatched one was unsqueezed by a node
// before), every size argument as an (h, w) pair, padding="same" / "valid" as
// the explicit symmetric pads (an odd "same" padding is the larger pad plus a
// narrow node after), conv1d as a conv2d over a height of 1. The public
// functions take all of these as they are and give the same result.
#include "ember/ops/linalg.h"
#include "jit/invokers/invoke_util.h"
#include "dispatch/op_ids/linalg.h"

namespace ember::jit {

// Two outputs (values, indices). max_pool2d records this op instead of max_pool2d
// when its input needs a gradient; attrs: kernel, stride, padding, dilation, ceil_mode.
EMBER_REGISTER_INVOKER(max_pool2d_with_indices, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return as_outputs(max_pool2d_with_indices(a.tensor(0), as_list(a.ints(0)), as_list(a.ints(1)),
                                            as_list(a.ints(2)), as_list(a.ints(3)), a.flag(4)));
});

}  // namespace ember::jit
