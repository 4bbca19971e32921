// Backward primitives of the losses: argument checks, the forward's dtype
// promotion, then one dispatched op each (kernels: lib/cpu/loss_class_backward.cpp,
// lib/cpu/loss_pointwise_backward.cpp).
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/nn_backward.h"
#include "ember/ops/views.h"
#include "ops/nn_backward_checks.h"

namespace ember {

using namespace nn_checks;

namespace {

// The loss's per-position shape for class scores: input's without the class dim.
DimVector class_loss_shape(const Tensor& input) {
  DimVector s = input.sizes();
  s.erase(s.begin() + (input.dim() == 1 ? 0 : 1));
  return s;
}

void check_class_args(const Tensor& self, const Tensor& target, const Tensor& weight, const char* op) {
  check_defined(self, op, "input");
  check_defined(target, op, "target");
  check_floating(self, op);
  EMBER_CHECK(self.dim() >= 1, op, ": expected an input with a class dim, got ", describe(self));
  const int64_t C = self.dim() == 1 ? self.size(0) : self.size(1);
  if (!weight.defined()) return;
  check_floating(weight, op, "weight");
  EMBER_CHECK(weight.dim() == 1 && weight.numel() == C, op, ": weight tensor should be defined either for "
              "all ", C, " classes or no classes but got weight tensor of shape: ", shape_str(weight.sizes()));
}

void check_index_target(const Tensor& self, const Tensor& target, const char* op) {
  EMBER_CHECK(target.dtype() == kInt64 || target.dtype() == kUInt8, op, ": expected target dtype int64 or "
              "uint8 (class indices), got ", describe(target));
  EMBER_CHECK(target.sizes() == class_loss_shape(self), op, ": expected target of shape ",
              shape_str(class_loss_shape(self)), " for input ", describe(self), ", got ", describe(target));
}

}  // namespace

Tensor nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         const Tensor& weight, int64_t reduction, int64_t ignore_index,
                         const Tensor& total_weight) {
  const char* op = "nll_loss_backward";
  check_class_args(self, target, weight, op);
  check_index_target(self, target, op);
  check_reduction(reduction, op);
  check_loss_grad(grad_output, class_loss_shape(self), reduction, op);
  if (total_weight.defined())
    EMBER_CHECK(total_weight.numel() == 1 && total_weight.is_floating_point(), op,
                ": expected total_weight to be a single floating value, got ", describe(total_weight));
  OpCall call(opid::nll_loss_backward, {grad_output, self, target, weight, total_weight},
              NllLossBackwardArgs{.reduction = reduction, .ignore_index = ignore_index}.attrs());
  return dispatch_one(call);
}

Tensor cross_entropy_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                              const Tensor& weight, int64_t reduction, int64_t ignore_index,
                              double label_smoothing) {
  const char* op = "cross_entropy_backward";
  check_class_args(self, target, weight, op);
  check_reduction(reduction, op);
  EMBER_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0, op, ": label_smoothing must be between "
              "0.0 and 1.0. Got: ", label_smoothing);
  check_loss_grad(grad_output, class_loss_shape(self), reduction, op);
  const bool probs = target.sizes() == self.sizes() && target.dim() > 0;
  Tensor x = self, t = target;
  if (probs) {
    EMBER_CHECK(target.is_floating_point(), op, ": expected floating point type for target with class "
                "probabilities, got ", dtype_name(target.dtype()));
    const DType dt = promote_types(self.dtype(), target.dtype());
    x = self.to(dt);
    t = target.to(dt);
  } else {
    check_index_target(self, target, op);
  }
  OpCall call(opid::cross_entropy_backward, {grad_output, x, t, weight},
              CrossEntropyBackwardArgs{.reduction = reduction,
                                       .ignore_index = ignore_index,
                                       .label_smoothing = label_smoothing}
                  .attrs());
  return dispatch_one(call);
}

namespace {

// input and target of the element-wise losses in their common floating dtype,
// and the checks of grad_output (the broadcast shape for reduction 'none').
std::pair<Tensor, Tensor> pointwise_args(const Tensor& grad, const Tensor& input, const Tensor& target,
                                         int64_t reduction, const char* op) {
  check_defined(input, op, "input");
  check_defined(target, op, "target");
  check_reduction(reduction, op);
  const DimVector shape = broadcast_shapes(input.sizes(), target.sizes(), op);
  const DType dt = result_type(input, target);
  if (!is_floating(dt))
    throw NotImplementedError(detail::str(op, ": not implemented for dtype ", dtype_name(dt),
                                          " (expected floating point input or target)"));
  check_loss_grad(grad, shape, reduction, op);
  return {input.to(dt), target.to(dt)};
}

// attrs: the op's, written by its Args struct (reduction is among them).
Tensor pointwise_backward(OpId id, const Tensor& grad, const Tensor& input, const Tensor& target,
                          int64_t reduction, const char* op, SmallVector<Attr, 4> attrs) {
  auto [x, t] = pointwise_args(grad, input, target, reduction, op);
  OpCall call(id, {grad, x, t}, std::move(attrs));
  return dispatch_one(call);
}

// weight / pos_weight of the binary losses: broadcast to the input's shape, in its dtype.
Tensor binary_weight(const Tensor& w, const Tensor& input, const char* op, const char* name) {
  if (!w.defined()) return w;
  check_floating(w, op, name);
  EMBER_CHECK(broadcasts_to(w.sizes(), input.sizes()), op, ": ", name, " of shape ", shape_str(w.sizes()),
              " does not broadcast to the input's shape ", shape_str(input.sizes()));
  return w.to(input.dtype());
}

void check_same_shape(const Tensor& input, const Tensor& target, const char* op) {
  EMBER_CHECK_VALUE(target.sizes() == input.sizes(), op, ": target size (", shape_str(target.sizes()),
                    ") must be the same as input size (", shape_str(input.sizes()), ")");
}

}  // namespace

Tensor mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         int64_t reduction) {
  return pointwise_backward(opid::mse_loss_backward, grad_output, self, target, reduction, "mse_loss_backward",
                            MseLossBackwardArgs{.reduction = reduction}.attrs());
}

Tensor l1_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                        int64_t reduction) {
  return pointwise_backward(opid::l1_loss_backward, grad_output, self, target, reduction, "l1_loss_backward",
                            L1LossBackwardArgs{.reduction = reduction}.attrs());
}

Tensor smooth_l1_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                               int64_t reduction, double beta) {
  EMBER_CHECK(beta >= 0, "smooth_l1_loss_backward: beta must be non-negative, got ", beta);
  return pointwise_backward(opid::smooth_l1_loss_backward, grad_output, self, target, reduction,
                            "smooth_l1_loss_backward",
                            SmoothL1LossBackwardArgs{.reduction = reduction, .beta = beta}.attrs());
}

Tensor huber_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                           int64_t reduction, double delta) {
  EMBER_CHECK(delta > 0, "huber_loss_backward: delta must be positive, got ", delta);
  return pointwise_backward(opid::huber_loss_backward, grad_output, self, target, reduction,
                            "huber_loss_backward",
                            HuberLossBackwardArgs{.reduction = reduction, .delta = delta}.attrs());
}

Tensor binary_cross_entropy_backward(const Tensor& grad_output, const Tensor& self,
                                     const Tensor& target, const Tensor& weight, int64_t reduction) {
  const char* op = "binary_cross_entropy_backward";
  check_defined(self, op, "input");
  check_defined(target, op, "target");
  check_floating(self, op);
  check_reduction(reduction, op);
  check_same_shape(self, target, op);
  EMBER_CHECK(target.dtype() == self.dtype(), op, ": expected target of dtype ", dtype_name(self.dtype()),
              " (the input's), got ", dtype_name(target.dtype()));
  check_loss_grad(grad_output, self.sizes(), reduction, op);
  OpCall call(opid::binary_cross_entropy_backward,
              {grad_output, self, target, binary_weight(weight, self, op, "weight")},
              BinaryCrossEntropyBackwardArgs{.reduction = reduction}.attrs());
  return dispatch_one(call);
}

Tensor binary_cross_entropy_with_logits_backward(const Tensor& grad_output, const Tensor& self,
                                                 const Tensor& target, const Tensor& weight,
                                                 const Tensor& pos_weight, int64_t reduction) {
  const char* op = "binary_cross_entropy_with_logits_backward";
  check_defined(self, op, "input");
  check_defined(target, op, "target");
  check_floating(self, op);
  EMBER_CHECK(target.is_floating_point(), op, ": expected a floating point target, got ", describe(target));
  check_reduction(reduction, op);
  check_same_shape(self, target, op);
  check_loss_grad(grad_output, self.sizes(), reduction, op);
  const DType dt = promote_types(self.dtype(), target.dtype());
  const Tensor x = self.to(dt);
  OpCall call(opid::binary_cross_entropy_with_logits_backward,
              {grad_output, x, target.to(dt), binary_weight(weight, x, op, "weight"),
               binary_weight(pos_weight, x, op, "pos_weight")},
              BinaryCrossEntropyWithLogitsBackwardArgs{.reduction = reduction}.attrs());
  return dispatch_one(call);
}

}  // namespace ember
