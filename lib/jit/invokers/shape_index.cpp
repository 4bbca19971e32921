// Invokers of the shape_index group (lib/dispatch/ops/shape_index.def): joining,
// rearranging, gathering and scattering along a dim, masks, sorting and advanced
// indexing. The out-of-place forms (scatter, index_add, masked_fill, ...) trace
// as a clone (copy_) and the in-place op on it, so only the in-place forms have rows.
#include "ember/ops/shape_index.h"
#include "ember/ops/statistics.h"
#include "jit/invokers/invoke_util.h"

namespace ember::jit {

namespace {

// Optional tensor inputs from position `from` on (advanced indexing: a left-out
// index keeps that dim whole).
TensorList opt_tensors_from(const InvokeArgs& a, size_t from) {
  TensorList out;
  for (size_t i = from; i < a.num_inputs(); ++i) out.push_back(a.opt_tensor(i));
  return out;
}

}  // namespace

// The dtype attr is what promotion gave when traced; the public cat promotes the
// inputs it is given again.
EMBER_REGISTER_INVOKER(cat, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {cat(a.tensors_from(0), a.integer(0))};
});

EMBER_REGISTER_INVOKER(flip, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {flip(a.tensor(0), as_list(a.ints(0)))};
});

EMBER_REGISTER_INVOKER(tril, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {tril(a.tensor(0), a.integer(0))};
});

EMBER_REGISTER_INVOKER(triu, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {triu(a.tensor(0), a.integer(0))};
});

// ---- along a dim ------------------------------------------------------------------------

EMBER_REGISTER_INVOKER(gather, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {gather(a.tensor(0), a.integer(0), a.tensor(1))};
});

EMBER_REGISTER_INVOKER(index_select, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {index_select(a.tensor(0), a.integer(0), a.tensor(1))};
});

EMBER_REGISTER_INVOKER(scatter_, [](const InvokeArgs& a) -> std::vector<Tensor> {
  Tensor self = inplace_self(a);
  return {scatter_(self, a.integer(0), a.tensor(1), a.tensor(2), a.string(1))};
});

EMBER_REGISTER_INVOKER(scatter_value_, [](const InvokeArgs& a) -> std::vector<Tensor> {
  Tensor self = inplace_self(a);
  return {scatter_(self, a.integer(0), a.tensor(1), a.scalar(1), a.string(2))};
});

EMBER_REGISTER_INVOKER(scatter_add_, [](const InvokeArgs& a) -> std::vector<Tensor> {
  Tensor self = inplace_self(a);
  return {scatter_add_(self, a.integer(0), a.tensor(1), a.tensor(2))};
});

EMBER_REGISTER_INVOKER(index_add_, [](const InvokeArgs& a) -> std::vector<Tensor> {
  Tensor self = inplace_self(a);
  return {index_add_(self, a.integer(0), a.tensor(1), a.tensor(2), a.scalar(1))};
});

EMBER_REGISTER_INVOKER(index_copy_, [](const InvokeArgs& a) -> std::vector<Tensor> {
  Tensor self = inplace_self(a);
  return {index_copy_(self, a.integer(0), a.tensor(1), a.tensor(2))};
});

EMBER_REGISTER_INVOKER(index_fill_, [](const InvokeArgs& a) -> std::vector<Tensor> {
  Tensor self = inplace_self(a);
  return {index_fill_(self, a.integer(0), a.tensor(1), a.scalar(1))};
});

EMBER_REGISTER_INVOKER(take, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {take(a.tensor(0), a.tensor(1))};
});

// in: sorted_sequence (sorter applied), values; attrs: right, out_int32.
EMBER_REGISTER_INVOKER(searchsorted, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {searchsorted(a.tensor(0), a.tensor(1), a.flag(1), a.flag(0))};
});

// ---- masks --------------------------------------------------------------------------------

EMBER_REGISTER_INVOKER(masked_fill_, [](const InvokeArgs& a) -> std::vector<Tensor> {
  Tensor self = inplace_self(a);
  return {masked_fill_(self, a.tensor(1), a.scalar(0))};
});

EMBER_REGISTER_INVOKER(nonzero, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {nonzero(a.tensor(0))};
});

// ---- sorting ------------------------------------------------------------------------------

EMBER_REGISTER_INVOKER(sort, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return as_outputs(sort(a.tensor(0), a.integer(0), a.flag(1), a.flag(2)));
});

EMBER_REGISTER_INVOKER(topk, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return as_outputs(topk(a.tensor(0), a.integer(0), a.integer(1), a.flag(2), a.flag(3)));
});

// The op always computes values, inverse and counts; the public unique returns
// all three when asked for both.
EMBER_REGISTER_INVOKER(unique, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return as_outputs(unique(a.tensor(0), /*sorted=*/true, /*return_inverse=*/true,
                           /*return_counts=*/true, a.opt_integer(0)));
});

// ---- advanced indexing ----------------------------------------------------------------------

EMBER_REGISTER_INVOKER(index, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {index(a.tensor(0), opt_tensors_from(a, 1))};
});

EMBER_REGISTER_INVOKER(index_put_, [](const InvokeArgs& a) -> std::vector<Tensor> {
  Tensor self = inplace_self(a);
  return {index_put_(self, opt_tensors_from(a, 2), a.tensor(1), a.flag(0))};
});

}  // namespace ember::jit
