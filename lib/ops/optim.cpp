// The fused optimizer updates (include/ember/ops/optim.h): argument checks,
// then one dispatched op each (kernels: lib/cpu/optim.cpp).
#include "dispatch/args/optim.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/optim.h"
#include "ember/ops/optim.h"

namespace ember {
namespace {

void check_param(const Tensor& param, const char* op) {
  EMBER_CHECK(param.defined(), op, ": param is an undefined tensor");
  EMBER_CHECK_TYPE(param.dtype() == kFloat32 || param.dtype() == kFloat64, op,
                   ": expected a float32 or float64 parameter, got ", describe(param));
}

// A tensor that must match the parameter: the gradient or a state tensor.
void check_like_param(const Tensor& t, const Tensor& param, const char* op, const char* name) {
  EMBER_CHECK(t.defined(), op, ": ", name, " is an undefined tensor");
  EMBER_CHECK(t.sizes() == param.sizes(), op, ": expected ", name, " of shape ",
              shape_str(param.sizes()), " like the parameter, got ", shape_str(t.sizes()));
  EMBER_CHECK(t.dtype() == param.dtype(), op, ": expected ", name, " of dtype ",
              dtype_name(param.dtype()), " like the parameter, got ", dtype_name(t.dtype()));
  EMBER_CHECK(t.device() == param.device(), op, ": expected ", name, " on ", param.device().str(),
              " like the parameter, got ", t.device().str());
}

void check_optional(const Tensor& t, bool needed, const Tensor& param, const char* op,
                    const char* name, const char* when) {
  EMBER_CHECK(t.defined() || !needed, op, ": ", name, " is needed ", when);
  if (t.defined()) check_like_param(t, param, op, name);
}

void check_step(double step, const char* op) {
  EMBER_CHECK_VALUE(step >= 1, op, ": step counts the current step and must be >= 1, got ", step);
}

// In place: the parameter and every defined state tensor (inputs 2...) are
// the op's preset outputs, so their versions are bumped and a tracer sees them.
void run_in_place(OpCall& call) {
  call.outputs.push_back(call.inputs[0]);
  for (size_t i = 2; i < call.inputs.size(); ++i)
    if (call.inputs[i].defined()) call.outputs.push_back(call.inputs[i]);
  dispatch(call);
}

}  // namespace

void sgd_step_(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, double lr,
               double momentum, double dampening, double weight_decay, bool nesterov,
               bool maximize, bool init_buffer) {
  const char* op = "sgd_step";
  check_param(param, op);
  check_like_param(grad, param, op, "grad");
  check_optional(momentum_buffer, momentum != 0, param, op, "momentum_buffer", "when momentum != 0");
  OpCall call(opid::sgd_step, {param, grad, momentum != 0 ? momentum_buffer : Tensor()},
              SgdStepArgs{.lr = lr, .momentum = momentum, .dampening = dampening,
                          .weight_decay = weight_decay, .nesterov = nesterov, .maximize = maximize,
                          .init_buffer = init_buffer}
                  .attrs());
  run_in_place(call);
}

void adam_step_(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, double lr, double beta1,
                double beta2, double eps, double weight_decay, double step, bool maximize,
                bool decoupled_weight_decay) {
  const char* op = "adam_step";
  check_param(param, op);
  check_like_param(grad, param, op, "grad");
  check_like_param(exp_avg, param, op, "exp_avg");
  check_like_param(exp_avg_sq, param, op, "exp_avg_sq");
  check_optional(max_exp_avg_sq, false, param, op, "max_exp_avg_sq", "");
  check_step(step, op);
  OpCall call(opid::adam_step, {param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq},
              AdamStepArgs{.lr = lr, .beta1 = beta1, .beta2 = beta2, .eps = eps,
                           .weight_decay = weight_decay, .step = step, .maximize = maximize,
                           .decoupled_weight_decay = decoupled_weight_decay}
                  .attrs());
  run_in_place(call);
}

void rmsprop_step_(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                   const Tensor& momentum_buffer, const Tensor& grad_avg, double lr, double alpha,
                   double eps, double weight_decay, double momentum, bool maximize) {
  const char* op = "rmsprop_step";
  check_param(param, op);
  check_like_param(grad, param, op, "grad");
  check_like_param(square_avg, param, op, "square_avg");
  check_optional(momentum_buffer, momentum > 0, param, op, "momentum_buffer", "when momentum > 0");
  check_optional(grad_avg, false, param, op, "grad_avg", "");
  OpCall call(opid::rmsprop_step,
              {param, grad, square_avg, momentum > 0 ? momentum_buffer : Tensor(), grad_avg},
              RmspropStepArgs{.lr = lr, .alpha = alpha, .eps = eps, .weight_decay = weight_decay,
                              .momentum = momentum, .maximize = maximize}
                  .attrs());
  run_in_place(call);
}

void adagrad_step_(const Tensor& param, const Tensor& grad, const Tensor& sum, double lr,
                   double lr_decay, double weight_decay, double eps, double step, bool maximize) {
  const char* op = "adagrad_step";
  check_param(param, op);
  check_like_param(grad, param, op, "grad");
  check_like_param(sum, param, op, "sum");
  check_step(step, op);
  OpCall call(opid::adagrad_step, {param, grad, sum},
              AdagradStepArgs{.lr = lr, .lr_decay = lr_decay, .weight_decay = weight_decay, .eps = eps,
                              .step = step, .maximize = maximize}
                  .attrs());
  run_in_place(call);
}

}  // namespace ember
