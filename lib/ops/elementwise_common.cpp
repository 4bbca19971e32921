// Shared argument checks of the elementwise op functions.
#include "ops/elementwise_common.h"

#include <string>

namespace ember::elementwise_detail {

void not_implemented(const char* op, DType t) {
  throw NotImplementedError(detail::str(op, ": not implemented for '", scalar_type_name(t), "'"));
}

void undefined_input(const char* op) {
  throw Error(detail::str(op, ": expected a defined tensor, got an undefined one"));
}

void check_inplace(const char* op, const Tensor& self, DType result, const DimVector& shape) {
  EMBER_CHECK(can_cast(result, self.dtype()), op, ": result type ", scalar_type_name(result),
              " can't be cast to the desired output type ", scalar_type_name(self.dtype()));
  EMBER_CHECK(shape == self.sizes(), op, ": output with shape ", shape_str(self.sizes()),
              " doesn't match the broadcast shape ", shape_str(shape));
  for (int64_t d = 0; d < self.dim(); ++d)
    EMBER_CHECK(self.strides()[d] != 0 || self.sizes()[d] <= 1, op,
                ": unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                "operation.");
}

Tensor& run_inplace(OpCall& call, Tensor& self, DType result, const DimVector& shape) {
  check_defined(call.name(), self);
  if (__builtin_expect(result != self.dtype() || shape != self.sizes(), 0) || !self.is_contiguous())
    check_inplace((std::string(call.name()) + "_").c_str(), self, result, shape);
  call.outputs.push_back(self);
  dispatch(call);
  return self;
}

DimVector inplace_shape(const Tensor& self, const Tensor& other, const char* op) {
  check_defined(op, self);
  check_defined(op, other);
  if (self.sizes() == other.sizes()) return self.sizes();
  return broadcast_shapes(self.sizes(), other.sizes(), op);
}

Tensor float_unary_backward(OpId op, const Tensor& grad_output, const Tensor& self,
                            SmallVector<Attr, 4> attrs) {
  const char* name = op_name(op);
  check_defined(name, grad_output);
  check_defined(name, self);
  EMBER_CHECK_TYPE(grad_output.dtype() == self.dtype() && self.is_floating_point(), name,
                   ": grad_output and self must have the same floating dtype, got ",
                   dtype_name(grad_output.dtype()), " and ", dtype_name(self.dtype()));
  OpCall call(op, SmallVector<Tensor, 4>{grad_output, self}, std::move(attrs));
  return run(call);
}

}  // namespace ember::elementwise_detail
