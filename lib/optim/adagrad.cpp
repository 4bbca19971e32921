#include "ember/optim/adagrad.h"

#include "ember/autograd.h"
#include "ember/ops/factories.h"
#include "ember/ops/optim.h"
#include "optim/values.h"

namespace ember::optim {

OptimValues AdagradOptions::values() const {
  return {{"lr", lr()},
          {"lr_decay", lr_decay()},
          {"weight_decay", weight_decay()},
          {"initial_accumulator_value", initial_accumulator_value()},
          {"eps", eps()},
          {"maximize", maximize()}};
}

void AdagradOptions::set_values(const OptimValues& v) {
  lr(read_double(v, "lr", lr()));
  lr_decay(read_double(v, "lr_decay", lr_decay()));
  weight_decay(read_double(v, "weight_decay", weight_decay()));
  initial_accumulator_value(read_double(v, "initial_accumulator_value", initial_accumulator_value()));
  eps(read_double(v, "eps", eps()));
  maximize(read_bool(v, "maximize", maximize()));
}

void AdagradOptions::validate() const {
  check_option(lr() >= 0, "learning rate", lr());
  check_option(lr_decay() >= 0, "lr_decay value", lr_decay());
  check_option(weight_decay() >= 0, "weight_decay value", weight_decay());
  check_option(initial_accumulator_value() >= 0, "initial_accumulator_value value",
               initial_accumulator_value());
  check_option(eps() >= 0, "epsilon value", eps());
}

OptimValues AdagradParamState::values() const {
  OptimValues v{{"step", step_tensor(step())}};
  put_tensor(v, "sum", sum());
  return v;
}

void AdagradParamState::set_values(const OptimValues& v) {
  step(read_step(v));
  sum(read_tensor(v, "sum"));
}

Adagrad::Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults)
    : OptimizerWith(std::move(param_groups), std::move(defaults)) {
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : this->param_groups())
    for (const Tensor& p : group.params())
      initialized_state(static_cast<const AdagradOptions&>(group.options()), p);
}

Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions defaults)
    : Adagrad(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
              std::move(defaults)) {}

AdagradParamState& Adagrad::initialized_state(const AdagradOptions& options, const Tensor& p) {
  AdagradParamState& s = state_of(p);
  if (!s.sum().defined()) s.sum(full_like(p, options.initial_accumulator_value()));
  return s;
}

Tensor Adagrad::step(LossClosure closure) {
  return step_each(closure, [this](const AdagradOptions& o, const Tensor& p) {
    AdagradParamState& s = initialized_state(o, p);  // a group added later starts here
    s.step(s.step() + 1);
    adagrad_step_(p, p.grad(), s.sum(), o.lr(), o.lr_decay(), o.weight_decay(), o.eps(),
                  static_cast<double>(s.step()), o.maximize());
  });
}

}  // namespace ember::optim
