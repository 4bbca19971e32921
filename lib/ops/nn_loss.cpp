// Loss functions: argument checks (PyTorch's rules, messages and exception
// kinds), dtype promotion, then one dispatched op each (kernels:
// lib/cpu/loss_class.cpp, lib/cpu/loss_pointwise.cpp).
#include "autocast/autocast_policy.h"
#include "dispatch/args/nn.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/nn.h"
#include "ember/ops/reduce.h"
#include "ember/ops/views.h"
#include "ops/nn_checks.h"

namespace ember {

using namespace nn_checks;

Reduction reduction_from_string(const std::string& reduction) {
  if (reduction == "none") return Reduction::None;
  if (reduction == "mean") return Reduction::Mean;
  if (reduction == "sum") return Reduction::Sum;
  throw ValueError(reduction + " is not a valid value for reduction (expected 'none', 'mean' or 'sum')");
}

namespace {

// The `reduction` attr of the loss rows: the Reduction's int value.
int64_t reduction_int(const std::string& reduction) {
  return static_cast<int64_t>(reduction_from_string(reduction));
}

// Shapes of class-index losses: input [C] with target [], [N, C] with [N],
// [N, C, d1, ...] with [N, d1, ...].
void check_class_target(const Tensor& input, const Tensor& target, const char* op) {
  if (input.dim() == 1) {
    // PyTorch also takes a 1-element 1-d target for an unbatched input (read as the 0-d one),
    // and any other length of it is a ValueError.
    if (target.dim() == 1)
      EMBER_CHECK_VALUE(target.size(0) == 1, op, ": for a 1-d input, a 1-d target must have size 1, "
                        "but got target size: ", target.size(0));
    else
      EMBER_CHECK(target.dim() == 0, op, ": expected a 0-d target for a 1-d input (unbatched), got ",
                  describe(target));
    return;
  }
  if (input.dim() == 2)
    EMBER_CHECK(target.dim() == 1, op, ": 0D or 1D target tensor expected, multi-target not "
                "supported (got target of shape ", shape_str(target.sizes()), ")");
  EMBER_CHECK_VALUE(target.dim() == 0 || target.size(0) == input.size(0), op,
                    ": expected input batch_size (", input.size(0), ") to match target batch_size (",
                    target.dim() == 0 ? 0 : target.size(0), ").");
  DimVector expected = input.sizes();
  expected.erase(expected.begin() + 1);
  EMBER_CHECK(target.sizes() == expected, op, ": expected target size ", shape_str(expected),
              ", got ", shape_str(target.sizes()));
}

void check_class_weight(const Tensor& weight, const Tensor& input, bool same_dtype, const char* op) {
  if (!weight.defined()) return;
  const int64_t C = input.dim() == 1 ? input.size(0) : input.size(1);
  EMBER_CHECK(weight.dim() == 1 && weight.numel() == C, op, ": weight tensor should be defined "
              "either for all ", C, " classes or no classes but got weight tensor of shape: ",
              shape_str(weight.sizes()));
  check_floating(weight, op, "weight");
  if (same_dtype)
    // Inside an autocast region: as nll_loss and cross_entropy's policy (float32) casts them.
    EMBER_CHECK(autocast::input_dtype(opid::nll_loss, weight) ==
                    autocast::input_dtype(opid::nll_loss, input), op, ": expected weight of dtype ",
                dtype_name(input.dtype()), " (the input's), got ", dtype_name(weight.dtype()));
}

void check_class_input(const Tensor& input, const Tensor& target, const char* op) {
  check_defined(input, op, "input");
  check_defined(target, op, "target");
  EMBER_CHECK(input.dim() >= 1, op, ": expected an input with a class dim, got ", describe(input));
  check_floating(input, op);
}

// The checked class target of a 1-d input as the 0-d target the kernels take.
Tensor unbatched_target(const Tensor& input, const Tensor& target) {
  return input.dim() == 1 && target.dim() == 1 ? target.reshape({}) : target;
}

}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                int64_t ignore_index, const std::string& reduction) {
  const char* op = "nll_loss";
  check_class_input(input, target, op);
  EMBER_CHECK(target.dtype() == kInt64 || target.dtype() == kUInt8, op,
              ": expected target dtype to be int64 or uint8 (class indices), got ", describe(target));
  check_class_target(input, target, op);
  check_class_weight(weight, input, true, op);
  OpCall call(opid::nll_loss, {input, unbatched_target(input, target), weight},
              NllLossArgs{.ignore_index = ignore_index, .reduction = reduction_int(reduction)}.attrs());
  return dispatch_one(call);
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                     int64_t ignore_index, const std::string& reduction, double label_smoothing) {
  const char* op = "cross_entropy";
  check_class_input(input, target, op);
  const int64_t red = reduction_int(reduction);
  EMBER_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0, op, ": label_smoothing must be "
              "between 0.0 and 1.0. Got: ", label_smoothing);
  const bool probs = input.sizes() == target.sizes() && target.dim() > 0;
  if (!probs) {
    EMBER_CHECK(target.dtype() == kInt64 || target.dtype() == kUInt8, op, ": expected target dtype "
                "int64 or uint8 (class indices) or a floating target of the input's shape (class "
                "probabilities), got ", describe(target), " for input ", describe(input));
    check_class_target(input, target, op);
    check_class_weight(weight, input, true, op);
    OpCall call(opid::cross_entropy, {input, unbatched_target(input, target), weight},
                CrossEntropyArgs{.ignore_index = ignore_index,
                                 .reduction = red,
                                 .label_smoothing = label_smoothing}
                    .attrs());
    return dispatch_one(call);
  }
  EMBER_CHECK(target.is_floating_point(), op, ": expected floating point type for target with "
              "class probabilities, got ", dtype_name(target.dtype()));
  EMBER_CHECK(ignore_index == -100, op, ": ignore_index is not supported for floating point target");
  check_class_weight(weight, input, false, op);
  const DType dt = promote_types(input.dtype(), target.dtype());
  OpCall call(opid::cross_entropy, {input.to(dt), target.to(dt), weight},
              CrossEntropyArgs{.ignore_index = ignore_index,
                               .reduction = red,
                               .label_smoothing = label_smoothing}
                  .attrs());
  return dispatch_one(call);
}

namespace {

// input and target of the element-wise losses, cast to their common floating dtype.
std::pair<Tensor, Tensor> promoted_pair(const Tensor& input, const Tensor& target, const char* op) {
  check_defined(input, op, "input");
  check_defined(target, op, "target");
  broadcast_shapes(input.sizes(), target.sizes(), op);
  const DType dt = result_type(input, target);
  if (!is_floating(dt))
    throw NotImplementedError(detail::str(op, ": not implemented for dtype ", dtype_name(dt),
                                          " (expected floating point input or target)"));
  return {input.to(dt), target.to(dt)};
}

// attrs: the op's, written by the caller with its Args struct (so a bad reduction string
// is reported before the tensors are checked).
Tensor pair_loss(OpId id, const Tensor& input, const Tensor& target, const char* op,
                 SmallVector<Attr, 4> attrs) {
  auto [a, b] = promoted_pair(input, target, op);
  OpCall call(id, {a, b}, std::move(attrs));
  return dispatch_one(call);
}

// weight / pos_weight of the binary losses: broadcast to the input's shape, in its dtype.
Tensor binary_weight(const Tensor& w, const Tensor& input, const char* op, const char* name) {
  if (!w.defined()) return w;
  check_floating(w, op, name);
  EMBER_CHECK(broadcasts_to(w.sizes(), input.sizes()), op, ": ", name,
              " of shape ", shape_str(w.sizes()), " does not broadcast to the input's shape ",
              shape_str(input.sizes()));
  return w.to(input.dtype());
}

}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  return pair_loss(opid::mse_loss, input, target, "mse_loss",
                   MseLossArgs{.reduction = reduction_int(reduction)}.attrs());
}

Tensor l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  return pair_loss(opid::l1_loss, input, target, "l1_loss",
                   L1LossArgs{.reduction = reduction_int(reduction)}.attrs());
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction,
                      double beta) {
  EMBER_CHECK(beta >= 0, "smooth_l1_loss: smooth_l1_loss does not support negative values for beta, got ", beta);
  return pair_loss(opid::smooth_l1_loss, input, target, "smooth_l1_loss",
                   SmoothL1LossArgs{.reduction = reduction_int(reduction), .beta = beta}.attrs());
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction,
                  double delta) {
  EMBER_CHECK(delta > 0, "huber_loss: huber_loss does not support non-positive values for delta, got ", delta);
  Tensor out = pair_loss(opid::huber_loss, input, target, "huber_loss",
                         HuberLossArgs{.reduction = reduction_int(reduction), .delta = delta}.attrs());
  // torch's huber_loss keeps the input's dtype (its other pointwise losses promote);
  // inside an autocast region, the dtype autocast gave the input (float32).
  DType keep = autocast::input_dtype(opid::huber_loss, input);
  return out.dtype() == keep ? out : out.to(keep);
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            const std::string& reduction) {
  const char* op = "binary_cross_entropy";
  check_defined(input, op, "input");
  check_defined(target, op, "target");
  const int64_t red = reduction_int(reduction);
  EMBER_CHECK_VALUE(target.sizes() == input.sizes(), op, ": using a target size (",
                    shape_str(target.sizes()), ") that is different to the input size (",
                    shape_str(input.sizes()), ") is deprecated. Please ensure they have the same size.");
  check_floating(input, op);
  EMBER_CHECK(autocast::input_dtype(opid::binary_cross_entropy, target) ==
                  autocast::input_dtype(opid::binary_cross_entropy, input), op, ": expected target of dtype ",
              dtype_name(input.dtype()), " (the input's), got ", dtype_name(target.dtype()));
  // Probabilities both: PyTorch checks them in its kernels, input first (NaN fails too).
  auto in_unit_interval = [](const Tensor& t) {
    return all(logical_and(ge(t.detach(), 0), le(t.detach(), 1))).item<bool>();
  };
  EMBER_CHECK(in_unit_interval(input), op, ": all elements of input should be between 0 and 1");
  EMBER_CHECK(in_unit_interval(target), op, ": all elements of target should be between 0 and 1");
  OpCall call(opid::binary_cross_entropy, {input, target, binary_weight(weight, input, op, "weight")},
              BinaryCrossEntropyArgs{.reduction = red}.attrs());
  return dispatch_one(call);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& weight, const std::string& reduction,
                                        const Tensor& pos_weight) {
  const char* op = "binary_cross_entropy_with_logits";
  check_defined(input, op, "input");
  check_defined(target, op, "target");
  const int64_t red = reduction_int(reduction);
  EMBER_CHECK_VALUE(target.sizes() == input.sizes(), op, ": target size (", shape_str(target.sizes()),
                    ") must be the same as input size (", shape_str(input.sizes()), ")");
  check_floating(input, op);
  EMBER_CHECK(target.is_floating_point(), op, ": expected a floating point target, got ",
              describe(target));
  const DType dt = promote_types(input.dtype(), target.dtype());
  const Tensor x = input.to(dt);
  OpCall call(opid::binary_cross_entropy_with_logits,
              {x, target.to(dt), binary_weight(weight, x, op, "weight"),
               binary_weight(pos_weight, x, op, "pos_weight")},
              BinaryCrossEntropyWithLogitsArgs{.reduction = red}.attrs());
  return dispatch_one(call);
}

}  // namespace ember
