// The hand-written invoker of the reduce group (lib/dispatch/schema/reduce.toml):
// aminmax, whose node holds a dims list where its public function takes one
// optional dim. The group's other invokers are generated from their rows
// (build/generated/jit/invokers_reduce.cpp): their nodes hold the dims the op
// function normalized and the dtype it resolved, which passed back through the
// public functions give the same call.
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

EMBER_REGISTER_INVOKER(aminmax, [](const InvokeArgs& a) -> std::vector<Tensor> {
  const Tensor& self = a.tensor(0);
  return as_outputs(ember::aminmax(self, aminmax_dim(a, self), a.flag(1)));
});

}  // namespace ember::jit
