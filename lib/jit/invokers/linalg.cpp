// Invokers of the linalg group (lib/dispatch/ops/linalg.def): matrix products,
// convolutions and pooling, each run through its public function
// (include/ember/ops/linalg.h) so its rank, dtype and size checks guard nodes
// read from a model file.
//
// The op functions (lib/ops/linalg.cpp, conv.cpp, pool.cpp) record normalized
// arguments: a batched 4-d input (an unbatched one was unsqueezed by a node
// before), every size argument as an (h, w) pair, padding="same" / "valid" as
// the explicit symmetric pads (an odd "same" padding is the larger pad plus a
// narrow node after), conv1d as a conv2d over a height of 1. The public
// functions take all of these as they are and give the same result.
#include "ember/ops/linalg.h"
#include "jit/invokers/invoke_util.h"

namespace ember::jit {

namespace {

// An int-list attribute as the IntList the public functions take.
IntList int_list(const InvokeArgs& a, size_t i) { return as_list(a.ints(i)); }

}  // namespace

// ---- matrix products --------------------------------------------------------------------------
EMBER_REGISTER_INVOKER(mm, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {mm(a.tensor(0), a.tensor(1))};
});
EMBER_REGISTER_INVOKER(bmm, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {bmm(a.tensor(0), a.tensor(1))};
});
EMBER_REGISTER_INVOKER(mv, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {mv(a.tensor(0), a.tensor(1))};
});
EMBER_REGISTER_INVOKER(dot, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {dot(a.tensor(0), a.tensor(1))};
});
// in: self, mat1, mat2; attrs: beta, alpha.
EMBER_REGISTER_INVOKER(addmm, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {addmm(a.tensor(0), a.tensor(1), a.tensor(2), a.scalar(0), a.scalar(1))};
});

// ---- convolutions -------------------------------------------------------------------------------
// in: input, weight, bias?; attrs: stride, padding, dilation, groups.
EMBER_REGISTER_INVOKER(conv2d, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {conv2d(a.tensor(0), a.tensor(1), a.opt_tensor(2), int_list(a, 0),
                 ConvPadding(int_list(a, 1)), int_list(a, 2), a.integer(3))};
});
// in: input, weight, bias?; attrs: stride, padding, output_padding, groups, dilation.
EMBER_REGISTER_INVOKER(conv_transpose2d, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {conv_transpose2d(a.tensor(0), a.tensor(1), a.opt_tensor(2), int_list(a, 0),
                           int_list(a, 1), int_list(a, 2), a.integer(3), int_list(a, 4))};
});

// ---- pooling ------------------------------------------------------------------------------------
// max_pool2d records max_pool2d_with_indices instead when its input needs a
// gradient; both take attrs: kernel, stride, padding, dilation, ceil_mode.
EMBER_REGISTER_INVOKER(max_pool2d, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {max_pool2d(a.tensor(0), int_list(a, 0), int_list(a, 1), int_list(a, 2), int_list(a, 3),
                     a.flag(4))};
});
EMBER_REGISTER_INVOKER(max_pool2d_with_indices, [](const InvokeArgs& a) -> std::vector<Tensor> {
  auto [values, indices] = max_pool2d_with_indices(a.tensor(0), int_list(a, 0), int_list(a, 1),
                                                   int_list(a, 2), int_list(a, 3), a.flag(4));
  return {values, indices};
});
// attrs: kernel, stride, padding, ceil_mode, count_include_pad, divisor_override (int or None).
EMBER_REGISTER_INVOKER(avg_pool2d, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {avg_pool2d(a.tensor(0), int_list(a, 0), int_list(a, 1), int_list(a, 2), a.flag(3),
                     a.flag(4), a.opt_integer(5))};
});
// attr: output_size (h, w), resolved from None entries when traced.
EMBER_REGISTER_INVOKER(adaptive_avg_pool2d, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {adaptive_avg_pool2d(a.tensor(0), int_list(a, 0))};
});

}  // namespace ember::jit
