// Outputs of the reduce group's kernels: a preset output (out=) when there is
// one, else a new contiguous tensor pushed onto the call's outputs.
#pragma once
#include "dispatch/op_call.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"

namespace ember::cpu {

// Where output k is computed: the preset tensor when it is contiguous with the
// right shape and dtype, else a new tensor (finish_output copies it back).
inline Tensor output_for(const OpCall& c, size_t k, const DimVector& shape, DType dtype) {
  if (k < c.outputs.size()) {
    const Tensor& o = c.outputs[k];
    if (o.sizes() == shape && o.dtype() == dtype && o.is_contiguous()) return o;
  }
  return empty(shape, TensorOptions(dtype).device(c.inputs[0].device()));
}

inline void finish_output(OpCall& c, size_t k, const Tensor& result) {
  if (k < c.outputs.size()) {
    if (!c.outputs[k].is_same(result)) c.outputs[k].copy_(result);
  } else {
    c.outputs.push_back(result);
  }
}

}  // namespace ember::cpu
