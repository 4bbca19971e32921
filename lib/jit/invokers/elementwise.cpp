// The hand-written invokers of the elementwise group: the rows whose schema says
// invoker = "manual" (lib/dispatch/schema/elementwise.toml). The others are
// generated from their signatures (build/generated/jit/invokers_elementwise.cpp).
//
// What the op functions put in the OpCall (lib/ops/elementwise_*.cpp):
// - inputs are tensors only: a Python number operand (x + 2, x.clamp(min=0),
//   where(c, x, 0.)) arrives as a wrapped 0-dim tensor input, so the
//   Tensor-Tensor overloads reproduce the call (the graph's value records the
//   is_wrapped_number mark, which type promotion reads, and the tensor made
//   for it when the graph runs carries it again);
// - in-place forms (x.add_(y), F.relu(x, inplace=True)) preset outputs[0] to
//   self: the node writes into its first input and runs op_ on it. There is no
//   public out= form of these ops, so any other preset is refused.
#include "ember/ops/elementwise_special.h"
#include "jit/invokers/invoke_util.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::jit {

// polygamma(n, x): n is the node's attr 0; in place the order differs: x.polygamma_(n).
EMBER_REGISTER_INVOKER(polygamma, [](const InvokeArgs& a) -> std::vector<Tensor> {
  if (a.node().preset.empty()) return {ember::polygamma(a.integer(0), a.tensor(0))};
  Tensor self = inplace_self(a);
  return {ember::polygamma_(self, a.integer(0))};
});

}  // namespace ember::jit
