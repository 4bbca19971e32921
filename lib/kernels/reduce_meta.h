// The meta step of the reduce group's kernels: what every device's kernel of a
// reduction prepares alike, computed once here from the call's typed arguments
// (dispatch/args/reduce.h): the input as the kernel reads it, the reduced dims and
// the outputs (shape and dtype). A CPU kernel and its CUDA twin then differ only
// in their loops.
#pragma once
#include "dispatch/op_call.h"

namespace ember {

struct ReduceMeta {
  Tensor x;        // the input, in the dtype the kernel reads (sum, mean, prod, norm and the ops
                   // along one dim cast first; those along one dim get it contiguous)
  DimVector dims;  // the reduced dims, wrapped and sorted (empty: none, a 0-dim input); for
                   // cumsum, cumprod, softmax and log_softmax the one dim they run along
  int64_t n = 1;   // values reduced into each output
  // Where the kernel writes, contiguous: a preset output (in-place, out=) when it
  // has the result's shape and dtype, else a new tensor.
  SmallVector<Tensor, 2> outputs;

  // Hands the outputs to the call: copied into preset outputs that were not
  // written directly, appended otherwise.
  void finish(OpCall& c) const;
};

// The meta of c, by its op: sum, mean, prod, amax, amin, aminmax, max_dim, min_dim,
// argmax, argmin, any, all, count_nonzero, var, std, var_mean, std_mean, norm,
// logsumexp, cumsum, cumprod, softmax, log_softmax. The op functions
// (lib/ops/reduce*.cpp) checked the arguments before dispatch; this only derives
// shapes and dtypes.
ReduceMeta reduce_meta(const OpCall& c);

}  // namespace ember
