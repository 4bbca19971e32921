#include "ember/optim/rmsprop.h"

#include "ember/ops/factories.h"
#include "ember/ops/optim.h"
#include "optim/values.h"

namespace ember::optim {

OptimValues RMSpropOptions::values() const {
  return {{"lr", lr()},       {"alpha", alpha()},       {"eps", eps()},
          {"weight_decay", weight_decay()}, {"momentum", momentum()}, {"centered", centered()},
          {"maximize", maximize()}};
}

void RMSpropOptions::set_values(const OptimValues& v) {
  lr(read_double(v, "lr", lr()));
  alpha(read_double(v, "alpha", alpha()));
  eps(read_double(v, "eps", eps()));
  weight_decay(read_double(v, "weight_decay", weight_decay()));
  momentum(read_double(v, "momentum", momentum()));
  centered(read_bool(v, "centered", centered()));
  maximize(read_bool(v, "maximize", maximize()));
}

void RMSpropOptions::validate() const {
  check_option(lr() >= 0, "learning rate", lr());
  check_option(eps() >= 0, "epsilon value", eps());
  check_option(momentum() >= 0, "momentum value", momentum());
  check_option(weight_decay() >= 0, "weight_decay value", weight_decay());
  check_option(alpha() >= 0, "alpha value", alpha());
}

OptimValues RMSpropParamState::values() const {
  OptimValues v{{"step", step_tensor(step())}};
  put_tensor(v, "square_avg", square_avg());
  put_tensor(v, "momentum_buffer", momentum_buffer());
  put_tensor(v, "grad_avg", grad_avg());
  return v;
}

void RMSpropParamState::set_values(const OptimValues& v) {
  step(read_step(v));
  square_avg(read_tensor(v, "square_avg"));
  momentum_buffer(read_tensor(v, "momentum_buffer"));
  grad_avg(read_tensor(v, "grad_avg"));
}

Tensor RMSprop::step(LossClosure closure) {
  return step_each(closure, [this](const RMSpropOptions& o, const Tensor& p) {
    RMSpropParamState& s = state_of(p);
    if (!s.square_avg().defined()) s.square_avg(zeros_like(p));
    if (o.momentum() > 0 && !s.momentum_buffer().defined()) s.momentum_buffer(zeros_like(p));
    if (o.centered() && !s.grad_avg().defined()) s.grad_avg(zeros_like(p));
    s.step(s.step() + 1);
    rmsprop_step_(p, p.grad(), s.square_avg(), o.momentum() > 0 ? s.momentum_buffer() : Tensor(),
                  o.centered() ? s.grad_avg() : Tensor(), o.lr(), o.alpha(), o.eps(),
                  o.weight_decay(), o.momentum(), o.maximize());
  });
}

}  // namespace ember::optim
