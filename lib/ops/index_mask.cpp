// Masks: masked_fill (an op), nonzero (an op), and the composites
// masked_select, nonzero(as_tuple), argwhere, where(condition).
#include "core/scalar_range.h"
#include "dispatch/args/shape_index.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/shape_index.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"

namespace ember {

namespace {
void check_bool_mask(const Tensor& mask, const char* op) {
  EMBER_CHECK(mask.defined() && mask.dtype() == kBool, op, " only supports boolean masks, but got "
              "mask with dtype ", mask.defined() ? dtype_name(mask.dtype()) : "undefined");
}

void check_zero_dim(const Tensor& value, const char* op) {
  EMBER_CHECK(value.dim() == 0, op, " only supports a 0-dimensional value tensor, but got tensor "
              "with ", value.dim(), " dimension(s).");
}

void check_fill_target(const Tensor& self, const Tensor& mask) {
  check_bool_mask(mask, "masked_fill_");
  DimVector b = broadcast_shapes(self.sizes(), mask.sizes(), "masked_fill_");
  EMBER_CHECK(b == self.sizes(), "masked_fill_: output with shape ", shape_str(self.sizes()),
              " doesn't match the broadcast shape ", shape_str(b));
}
}  // namespace

Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value) {
  check_fill_target(self, mask);
  check_scalar_fits("masked_fill_", value, self.dtype());
  OpCall call(opid::masked_fill_, {self, mask}, MaskedFillArgs{.value = value}.attrs());
  call.outputs.push_back(self);
  dispatch(call);
  return self;
}

Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Tensor& value) {
  check_zero_dim(value, "masked_fill_");
  if (!value.requires_grad()) return masked_fill_(self, mask, value.item());
  // A value that requires grad gets the gradient of the positions it filled:
  // written as a where (which has a derivative row), copied into self.
  check_fill_target(self, mask);
  return copy_(self, where(mask, value.to(self.dtype()), self));
}

namespace {
// The out-of-place form fills a copy of self broadcast with mask (PyTorch's rule).
Tensor broadcast_copy(const Tensor& self, const Tensor& mask) {
  check_bool_mask(mask, "masked_fill");
  DimVector b = broadcast_shapes(self.sizes(), mask.sizes(), "masked_fill");
  return clone(expand(self, IntList(b.begin(), b.end())));
}
}  // namespace

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  Tensor out = broadcast_copy(self, mask);
  return masked_fill_(out, mask, value);
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  check_zero_dim(value, "masked_fill");
  Tensor out = broadcast_copy(self, mask);
  return masked_fill_(out, mask, value);
}

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  EMBER_CHECK(mask.defined() && mask.dtype() == kBool, "masked_select: expected BoolTensor for "
              "mask, got ", mask.defined() ? dtype_name(mask.dtype()) : "undefined");
  DimVector b = broadcast_shapes(self.sizes(), mask.sizes(), "masked_select");
  IntList shape(b.begin(), b.end());
  Tensor s = expand(self, shape), m = expand(mask, shape);
  if (s.dim() == 0) {  // a 0-dim mask selects the element or nothing
    s = reshape(s, {1});
    m = reshape(m, {1});
  }
  return reshape(index(s, TensorList{m}), {-1});
}

Tensor nonzero(const Tensor& self) {
  OpCall call(opid::nonzero, {self});
  return dispatch_one(call);
}

TensorList nonzero_tuple(const Tensor& self) {
  Tensor nz = nonzero(self);
  if (self.dim() == 0)  // PyTorch treats a 0-dim tensor as 1-d here
    return {zeros(IntList{nz.sizes()[0]}, TensorOptions(kInt64).device(self.device()))};
  return unbind(nz, 1);
}

Tensor argwhere(const Tensor& self) { return nonzero(self); }
TensorList where(const Tensor& condition) { return nonzero_tuple(condition); }

// ---- methods ------------------------------------------------------------------------------

Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  return ember::masked_fill(*this, mask, value);
}
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  return ember::masked_fill(*this, mask, value);
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) {
  ember::masked_fill_(*this, mask, value);
  return *this;
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) {
  ember::masked_fill_(*this, mask, value);
  return *this;
}
Tensor Tensor::masked_select(const Tensor& mask) const { return ember::masked_select(*this, mask); }
Tensor Tensor::nonzero() const { return ember::nonzero(*this); }
Tensor Tensor::argwhere() const { return ember::argwhere(*this); }

}  // namespace ember
