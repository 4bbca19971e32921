// Adam and AdamW: one update rule (the adam_step op), with the weight decay
// coupled (Adam) or decoupled (AdamW).
#include "ember/optim/adam.h"

#include "ember/ops/factories.h"
#include "ember/ops/optim.h"
#include "ember/optim/adamw.h"
#include "optim/values.h"

namespace ember::optim {

template <typename Derived>
OptimValues AdamOptionsBase<Derived>::values() const {
  return {{"lr", lr()},
          {"betas", std::vector<double>{std::get<0>(betas()), std::get<1>(betas())}},
          {"eps", eps()},
          {"weight_decay", weight_decay()},
          {"amsgrad", amsgrad()},
          {"maximize", maximize()},
          {"decoupled_weight_decay", std::is_same_v<Derived, AdamWOptions>}};
}

template <typename Derived>
void AdamOptionsBase<Derived>::set_values(const OptimValues& v) {
  lr(read_double(v, "lr", lr()));
  std::vector<double> b = read_doubles(v, "betas", {std::get<0>(betas()), std::get<1>(betas())});
  EMBER_CHECK_VALUE(b.size() == 2, "optimizer state dict: expected 'betas' to hold 2 numbers, got ",
                    b.size());
  betas(std::make_tuple(b[0], b[1]));
  eps(read_double(v, "eps", eps()));
  weight_decay(read_double(v, "weight_decay", weight_decay()));
  amsgrad(read_bool(v, "amsgrad", amsgrad()));
  maximize(read_bool(v, "maximize", maximize()));
}

template <typename Derived>
void AdamOptionsBase<Derived>::validate() const {
  const auto [beta1, beta2] = betas();
  check_option(lr() >= 0, "learning rate", lr());
  check_option(eps() >= 0, "epsilon value", eps());
  check_option(beta1 >= 0 && beta1 < 1, "beta parameter at index 0", beta1);
  check_option(beta2 >= 0 && beta2 < 1, "beta parameter at index 1", beta2);
  check_option(weight_decay() >= 0, "weight_decay value", weight_decay());
}

template class AdamOptionsBase<AdamOptions>;
template class AdamOptionsBase<AdamWOptions>;

OptimValues AdamParamState::values() const {
  OptimValues v{{"step", step_tensor(step())}};
  put_tensor(v, "exp_avg", exp_avg());
  put_tensor(v, "exp_avg_sq", exp_avg_sq());
  put_tensor(v, "max_exp_avg_sq", max_exp_avg_sq());
  return v;
}

void AdamParamState::set_values(const OptimValues& v) {
  step(read_step(v));
  exp_avg(read_tensor(v, "exp_avg"));
  exp_avg_sq(read_tensor(v, "exp_avg_sq"));
  max_exp_avg_sq(read_tensor(v, "max_exp_avg_sq"));
}

namespace {

template <typename Options>
void adam_update(const Options& o, AdamParamState& s, const Tensor& p, bool decoupled) {
  if (!s.exp_avg().defined()) s.exp_avg(zeros_like(p));
  if (!s.exp_avg_sq().defined()) s.exp_avg_sq(zeros_like(p));
  if (o.amsgrad() && !s.max_exp_avg_sq().defined()) s.max_exp_avg_sq(zeros_like(p));
  s.step(s.step() + 1);
  const auto [beta1, beta2] = o.betas();
  adam_step_(p, p.grad(), s.exp_avg(), s.exp_avg_sq(), o.amsgrad() ? s.max_exp_avg_sq() : Tensor(),
             o.lr(), beta1, beta2, o.eps(), o.weight_decay(), static_cast<double>(s.step()),
             o.maximize(), decoupled);
}

}  // namespace

Tensor Adam::step(LossClosure closure) {
  return step_each(closure, [this](const AdamOptions& o, const Tensor& p) {
    adam_update(o, state_of(p), p, /*decoupled=*/false);
  });
}

Tensor AdamW::step(LossClosure closure) {
  return step_each(closure, [this](const AdamWOptions& o, const Tensor& p) {
    adam_update(o, state_of(p), p, /*decoupled=*/true);
  });
}

}  // namespace ember::optim
