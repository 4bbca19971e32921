#include "ember/optim/sgd.h"

#include "ember/ops/factories.h"
#include "ember/ops/optim.h"
#include "optim/values.h"

namespace ember::optim {

OptimValues SGDOptions::values() const {
  return {{"lr", lr()},
          {"momentum", momentum()},
          {"dampening", dampening()},
          {"weight_decay", weight_decay()},
          {"nesterov", nesterov()},
          {"maximize", maximize()}};
}

void SGDOptions::set_values(const OptimValues& v) {
  lr(read_double(v, "lr", lr()));
  momentum(read_double(v, "momentum", momentum()));
  dampening(read_double(v, "dampening", dampening()));
  weight_decay(read_double(v, "weight_decay", weight_decay()));
  nesterov(read_bool(v, "nesterov", nesterov()));
  maximize(read_bool(v, "maximize", maximize()));
}

void SGDOptions::validate() const {
  check_option(lr() >= 0, "learning rate", lr());
  check_option(momentum() >= 0, "momentum value", momentum());
  check_option(weight_decay() >= 0, "weight_decay value", weight_decay());
  EMBER_CHECK_VALUE(!nesterov() || (momentum() > 0 && dampening() == 0),
                    "Nesterov momentum requires a momentum and zero dampening");
}

OptimValues SGDParamState::values() const {
  OptimValues v;
  put_tensor(v, "momentum_buffer", momentum_buffer());
  return v;
}

void SGDParamState::set_values(const OptimValues& v) {
  momentum_buffer(read_tensor(v, "momentum_buffer"));
}

Tensor SGD::step(LossClosure closure) {
  return step_each(closure, [this](const SGDOptions& o, const Tensor& p) {
    Tensor buffer;
    bool first = false;
    if (o.momentum() != 0) {  // as torch.optim, state only exists with momentum
      SGDParamState& s = state_of(p);
      first = !s.momentum_buffer().defined();
      if (first) s.momentum_buffer(empty_like(p));
      buffer = s.momentum_buffer();
    }
    sgd_step_(p, p.grad(), buffer, o.lr(), o.momentum(), o.dampening(), o.weight_decay(),
              o.nesterov(), o.maximize(), first);
  });
}

}  // namespace ember::optim
