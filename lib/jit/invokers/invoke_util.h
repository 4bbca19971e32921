// Helpers shared by the invokers (lib/jit/invokers/*.cpp): which tensor an
// in-place node writes into, and small conversions from node attributes to the
// argument types of the public functions.
#pragma once
#include <tuple>
#include <vector>

#include "jit/op_invoker.h"

namespace ember::jit {

// The public functions take std::vector int lists; attributes hold DimVectors.
inline IntList as_list(const DimVector& v) { return IntList(v.begin(), v.end()); }

// A multi-output op's tuple as the node's outputs, in order.
template <typename... T>
std::vector<Tensor> as_outputs(const std::tuple<T...>& t) {
  return std::apply([](const auto&... x) { return std::vector<Tensor>{x...}; }, t);
}

// True for a node recorded from an op that wrote into a tensor its op function
// allocated (graph.h, fresh outputs): first input left out, nothing preset.
inline bool is_fresh_output(const InvokeArgs& a) {
  return a.node().preset.empty() && (a.num_inputs() == 0 || !a.opt_tensor(0).defined());
}

// Fails unless the node is a fresh-output node (factories: arange, eye, ...).
inline void expect_fresh_output(const InvokeArgs& a) {
  if (!is_fresh_output(a))
    a.fail("a factory node must leave its first input out and write into nothing preset");
}

// Fails for a node that writes into an existing tensor: for the ops that have no
// in-place form (isnan, softplus, where).
inline void check_out_of_place(const InvokeArgs& a) {
  if (!a.node().preset.empty())
    a.fail("this op has no in-place form, but the node writes into an existing tensor");
}

// The tensor an x.op_(...) node writes into: its first input, which it must also
// list as preset. A node that writes anywhere else (out= into an unrelated
// tensor) cannot be run through the public in-place function.
inline Tensor inplace_self(const InvokeArgs& a) {
  if (!a.writes_first_input())
    a.fail("an in-place node must write into its first input (the x.op_() form)");
  return a.tensor(0);
}

// For ops that either run in place (x.fill_(v)) or fill a tensor their op
// function allocated (zeros(), x.clone(), rand()): the first input, or a new
// tensor shaped like the traced output on the graph's device.
inline Tensor write_target(const InvokeArgs& a) {
  return is_fresh_output(a) ? a.fresh_output(0) : inplace_self(a);
}

}  // namespace ember::jit
