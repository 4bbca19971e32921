// The hand-written invokers of the shape_index group: the rows the generator
// cannot express (invoker = "manual" in lib/dispatch/schema/shape_index.toml):
// cat (its row records the promoted dtype, which the public cat does not take),
// index_put_ (the public function takes its indices before its values), unique
// (the public function takes the sorted/return_inverse/return_counts flags the row
// does not record) and searchsorted (attrs in another order than the public
// function's). The rest (flip, tril, triu, index, gather, index_select, take,
// nonzero, sort, topk and the in-place scatter_, scatter_value_ (as scatter_),
// scatter_add_, index_add_, index_copy_, index_fill_, masked_fill_) are generated
// from their rows into build/generated/jit/invokers_shape_index.cpp
// (lib/dispatch/codegen/gen_ops.py). The out-of-place forms (scatter, index_add,
// masked_fill, ...) trace as a clone (copy_) and the in-place op on it, so only the
// in-place forms have rows.
#include "ember/ops/shape_index.h"
#include "ember/ops/statistics.h"
#include "jit/invokers/invoke_util.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember::jit {

// The dtype attr is what promotion gave when traced; the public cat promotes the
// inputs it is given again.
EMBER_REGISTER_INVOKER(cat, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {cat(a.tensors_from(0), a.integer(0))};
});

// ---- along a dim ------------------------------------------------------------------------

// in: sorted_sequence (sorter applied), values; attrs: right, out_int32.
EMBER_REGISTER_INVOKER(searchsorted, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {searchsorted(a.tensor(0), a.tensor(1), a.flag(1), a.flag(0))};
});

// ---- sorting ------------------------------------------------------------------------------

// The op always computes values, inverse and counts; the public unique returns
// all three when asked for both.
EMBER_REGISTER_INVOKER(unique, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return as_outputs(unique(a.tensor(0), /*sorted=*/true, /*return_inverse=*/true,
                           /*return_counts=*/true, a.opt_integer(0)));
});

// ---- advanced indexing ----------------------------------------------------------------------

EMBER_REGISTER_INVOKER(index_put_, [](const InvokeArgs& a) -> std::vector<Tensor> {
  Tensor self = inplace_self(a);
  return {index_put_(self, a.opt_tensors_from(2), a.tensor(1), a.flag(0))};
});

}  // namespace ember::jit
