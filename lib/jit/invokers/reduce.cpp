// Invokers of the reduce group (lib/dispatch/schema/reduce.toml). The nodes hold
// the dims the op function normalized (wrapped, sorted, every dim when none was
// given) and the dtype it resolved; passed back through the public functions
// they give the same call. (Calls are qualified: `std` is also a reduction.)
#include "ember/ops/reduce.h"
#include "jit/invokers/invoke_util.h"
#include "dispatch/op_ids/reduce.h"

namespace ember::jit {

namespace {

// aminmax's node holds its dims as a list: the one dim given, or every dim of
// the input when none was (the public form takes one optional dim).
std::optional<int64_t> aminmax_dim(const InvokeArgs& a, const Tensor& self) {
  const DimVector& dims = a.ints(0);
  if (dims.size() == 1) return dims[0];
  if (static_cast<int64_t>(dims.size()) == self.dim()) return std::nullopt;
  a.fail(detail::str("aminmax: reduces one dim or all ", self.dim(), ", not ", dims.size()));
}

}  // namespace

// ---- dims, keepdim, dtype ------------------------------------------------------------------

EMBER_REGISTER_INVOKER(sum, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {ember::sum(a.tensor(0), as_list(a.ints(0)), a.flag(1), a.dtype(2))};
});

EMBER_REGISTER_INVOKER(mean, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {ember::mean(a.tensor(0), as_list(a.ints(0)), a.flag(1), a.dtype(2))};
});

EMBER_REGISTER_INVOKER(prod, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {ember::prod(a.tensor(0), as_list(a.ints(0)), a.flag(1), a.dtype(2))};
});

// ---- dims, keepdim ---------------------------------------------------------------------------

EMBER_REGISTER_INVOKER(amax, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {ember::amax(a.tensor(0), as_list(a.ints(0)), a.flag(1))};
});

EMBER_REGISTER_INVOKER(amin, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {ember::amin(a.tensor(0), as_list(a.ints(0)), a.flag(1))};
});

EMBER_REGISTER_INVOKER(aminmax, [](const InvokeArgs& a) -> std::vector<Tensor> {
  const Tensor& self = a.tensor(0);
  return as_outputs(ember::aminmax(self, aminmax_dim(a, self), a.flag(1)));
});

EMBER_REGISTER_INVOKER(logsumexp, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {ember::logsumexp(a.tensor(0), as_list(a.ints(0)), a.flag(1))};
});

EMBER_REGISTER_INVOKER(any, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {ember::any(a.tensor(0), as_list(a.ints(0)), a.flag(1))};
});

EMBER_REGISTER_INVOKER(all, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {ember::all(a.tensor(0), as_list(a.ints(0)), a.flag(1))};
});

EMBER_REGISTER_INVOKER(count_nonzero, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {ember::count_nonzero(a.tensor(0), as_list(a.ints(0)))};
});

// ---- one dim -----------------------------------------------------------------------------------

EMBER_REGISTER_INVOKER(max_dim, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return as_outputs(ember::max(a.tensor(0), a.integer(0), a.flag(1)));
});

EMBER_REGISTER_INVOKER(min_dim, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return as_outputs(ember::min(a.tensor(0), a.integer(0), a.flag(1)));
});

EMBER_REGISTER_INVOKER(argmax, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {ember::argmax(a.tensor(0), a.opt_integer(0), a.flag(1))};
});

EMBER_REGISTER_INVOKER(argmin, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {ember::argmin(a.tensor(0), a.opt_integer(0), a.flag(1))};
});

EMBER_REGISTER_INVOKER(cumsum, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {ember::cumsum(a.tensor(0), a.integer(0), a.dtype(1))};
});

EMBER_REGISTER_INVOKER(cumprod, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {ember::cumprod(a.tensor(0), a.integer(0), a.dtype(1))};
});

EMBER_REGISTER_INVOKER(softmax, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {ember::softmax(a.tensor(0), a.integer(0), a.dtype(1))};
});

EMBER_REGISTER_INVOKER(log_softmax, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {ember::log_softmax(a.tensor(0), a.integer(0), a.dtype(1))};
});

// ---- moments and norms: dims, correction, keepdim / p, dims, keepdim, dtype ----------------

EMBER_REGISTER_INVOKER(var, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {ember::var(a.tensor(0), as_list(a.ints(0)), a.real(1), a.flag(2))};
});

EMBER_REGISTER_INVOKER(std, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {ember::std(a.tensor(0), as_list(a.ints(0)), a.real(1), a.flag(2))};
});

EMBER_REGISTER_INVOKER(var_mean, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return as_outputs(ember::var_mean(a.tensor(0), as_list(a.ints(0)), a.real(1), a.flag(2)));
});

EMBER_REGISTER_INVOKER(std_mean, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return as_outputs(ember::std_mean(a.tensor(0), as_list(a.ints(0)), a.real(1), a.flag(2)));
});

EMBER_REGISTER_INVOKER(norm, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {ember::norm(a.tensor(0), a.real(0), as_list(a.ints(1)), a.flag(2), a.dtype(3))};
});

}  // namespace ember::jit
