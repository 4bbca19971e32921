// Python bindings of the fused optimizer updates (include/ember/ops/optim.h):
// ember._C._sgd_step_ and friends, called by the ember.optim classes once per
// parameter. None for an optional state tensor is an undefined Tensor.
#include "bindings.h"

namespace ember::python {

namespace {
using OptTensor = std::optional<Tensor>;
Tensor opt(const OptTensor& t) { return t.value_or(Tensor()); }
}  // namespace

void bind_optim(py::module_& m) {
  m.def("_sgd_step_", [](const Tensor& param, const Tensor& grad, const OptTensor& momentum_buffer,
                         double lr, double momentum, double dampening, double weight_decay,
                         bool nesterov, bool maximize, bool init_buffer) {
    sgd_step_(param, grad, opt(momentum_buffer), lr, momentum, dampening, weight_decay, nesterov,
              maximize, init_buffer);
  }, py::arg("param"), py::arg("grad"), py::arg("momentum_buffer"), py::kw_only(), py::arg("lr"),
     py::arg("momentum"), py::arg("dampening"), py::arg("weight_decay"), py::arg("nesterov"),
     py::arg("maximize"), py::arg("init_buffer"));
  m.def("_adam_step_", [](const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                          const Tensor& exp_avg_sq, const OptTensor& max_exp_avg_sq, double lr,
                          double beta1, double beta2, double eps, double weight_decay, double step,
                          bool maximize, bool decoupled_weight_decay) {
    adam_step_(param, grad, exp_avg, exp_avg_sq, opt(max_exp_avg_sq), lr, beta1, beta2, eps,
               weight_decay, step, maximize, decoupled_weight_decay);
  }, py::arg("param"), py::arg("grad"), py::arg("exp_avg"), py::arg("exp_avg_sq"),
     py::arg("max_exp_avg_sq"), py::kw_only(), py::arg("lr"), py::arg("beta1"), py::arg("beta2"),
     py::arg("eps"), py::arg("weight_decay"), py::arg("step"), py::arg("maximize"),
     py::arg("decoupled_weight_decay"));
  m.def("_rmsprop_step_", [](const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                             const OptTensor& momentum_buffer, const OptTensor& grad_avg, double lr,
                             double alpha, double eps, double weight_decay, double momentum,
                             bool maximize) {
    rmsprop_step_(param, grad, square_avg, opt(momentum_buffer), opt(grad_avg), lr, alpha, eps,
                  weight_decay, momentum, maximize);
  }, py::arg("param"), py::arg("grad"), py::arg("square_avg"), py::arg("momentum_buffer"),
     py::arg("grad_avg"), py::kw_only(), py::arg("lr"), py::arg("alpha"), py::arg("eps"),
     py::arg("weight_decay"), py::arg("momentum"), py::arg("maximize"));
  m.def("_adagrad_step_", [](const Tensor& param, const Tensor& grad, const Tensor& sum, double lr,
                             double lr_decay, double weight_decay, double eps, double step,
                             bool maximize) {
    adagrad_step_(param, grad, sum, lr, lr_decay, weight_decay, eps, step, maximize);
  }, py::arg("param"), py::arg("grad"), py::arg("sum"), py::kw_only(), py::arg("lr"),
     py::arg("lr_decay"), py::arg("weight_decay"), py::arg("eps"), py::arg("step"),
     py::arg("maximize"));
}

}  // namespace ember::python
