// slice_backward and select_backward: the gradient of a slice/select is zero
// everywhere but where the view looked. They are ops of their own (rather
// than zeros + an in-place copy into a view) so that their own gradient, for
// higher derivatives, is simply the same view of the incoming gradient.
#include "dispatch/args/core.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/core.h"
#include "ember/ops/factories.h"
#include "ember/ops/view_backward.h"
#include "ember/ops/views.h"

namespace ember {

Tensor slice_backward(const Tensor& grad, const DimVector& input_sizes, int64_t dim, int64_t start,
                      int64_t end, int64_t step) {
  OpCall call(opid::slice_backward, {grad},
              SliceBackwardArgs{.input_sizes = input_sizes, .dim = dim, .start = start, .end = end,
                                .step = step}
                  .attrs());
  return dispatch_one(call);
}

Tensor select_backward(const Tensor& grad, const DimVector& input_sizes, int64_t dim, int64_t index) {
  OpCall call(opid::select_backward, {grad},
              SelectBackwardArgs{.input_sizes = input_sizes, .dim = dim, .index = index}.attrs());
  return dispatch_one(call);
}

namespace {

Tensor zeros_shaped(const Tensor& like, const DimVector& sizes) {
  return zeros(IntList(sizes.begin(), sizes.end()), TensorOptions(like.dtype()).device(like.device()));
}

void slice_backward_kernel(OpCall& c) {
  const SliceBackwardArgs a = SliceBackwardArgs::from(c);
  Tensor out = zeros_shaped(c.in(0), a.input_sizes);
  Tensor window = slice(out, a.dim, a.start, a.end, a.step);
  copy_(window, c.in(0));
  c.outputs.push_back(out);
}

void select_backward_kernel(OpCall& c) {
  const SelectBackwardArgs a = SelectBackwardArgs::from(c);
  Tensor out = zeros_shaped(c.in(0), a.input_sizes);
  Tensor window = select(out, a.dim, a.index);
  copy_(window, c.in(0));
  c.outputs.push_back(out);
}

// Device-agnostic: they only call other ops.
EMBER_REGISTER_KERNEL(slice_backward, CPU, slice_backward_kernel);
EMBER_REGISTER_KERNEL(slice_backward, CUDA, slice_backward_kernel);
EMBER_REGISTER_KERNEL(select_backward, CPU, select_backward_kernel);
EMBER_REGISTER_KERNEL(select_backward, CUDA, select_backward_kernel);

}  // namespace
}  // namespace ember
