// The C++ learning-rate schedulers: lr sequences against the closed forms.
#include <catch2/catch.hpp>

#include <cmath>

#include "ember/ember.h"

using namespace ember;
using namespace ember::optim;

namespace {

Tensor param() { return zeros({2}).requires_grad_(); }

double lr_of(Optimizer& opt, size_t group = 0) {
  return opt.param_groups()[group].options().get_lr();
}

}  // namespace

TEST_CASE("StepLR decays every step_size epochs") {
  Tensor w = param();
  SGD opt({w}, SGDOptions(1.0));
  StepLR sched(opt, 3, 0.5);
  CHECK(sched.last_epoch() == 0);
  for (int epoch = 1; epoch <= 10; ++epoch) {
    sched.step();
    CHECK(lr_of(opt) == Approx(std::pow(0.5, epoch / 3)));
    CHECK(sched.get_last_lr()[0] == lr_of(opt));
  }
}

TEST_CASE("MultiStepLR decays at the milestones, twice for a repeated one") {
  Tensor w = param();
  SGD opt({w}, SGDOptions(1.0));
  MultiStepLR sched(opt, {2, 5, 5}, 0.1);
  std::vector<double> expected = {1, 1, 0.1, 0.1, 0.1, 1e-3, 1e-3};
  CHECK(lr_of(opt) == 1);
  for (size_t e = 1; e < expected.size(); ++e) {
    sched.step();
    CHECK(lr_of(opt) == Approx(expected[e]));
  }
}

TEST_CASE("ExponentialLR and chaining with StepLR multiply") {
  Tensor w = param();
  SGD opt({w}, SGDOptions(1.0));
  ExponentialLR exp_sched(opt, 0.9);
  StepLR step_sched(opt, 2, 0.5);
  for (int e = 1; e <= 4; ++e) {
    exp_sched.step();
    step_sched.step();
    CHECK(lr_of(opt) == Approx(std::pow(0.9, e) * std::pow(0.5, e / 2)));
  }
}

TEST_CASE("CosineAnnealingLR follows the closed form, past T_max too") {
  Tensor w = param();
  Adam opt({w}, AdamOptions(0.1));
  const double eta_min = 0.01;
  CosineAnnealingLR sched(opt, 5, eta_min);
  for (int e = 1; e <= 15; ++e) {
    sched.step();
    const double closed = eta_min + (0.1 - eta_min) * (1 + std::cos(M_PI * e / 5)) / 2;
    CHECK(lr_of(opt) == Approx(closed).margin(1e-12));
  }
}

TEST_CASE("OneCycleLR: up from max_lr / div_factor, down to the minimum, momentum inversely") {
  Tensor w = param();
  SGD opt({w}, SGDOptions(0.5).momentum(0.9));
  OneCycleLR sched(opt, OneCycleLROptions(1.0, 10).pct_start(0.3));
  auto momentum = [&] { return static_cast<SGDOptions&>(opt.param_groups()[0].options()).momentum(); };
  CHECK(lr_of(opt) == Approx(1.0 / 25));
  CHECK(momentum() == Approx(0.95));
  CHECK(sched.base_lrs()[0] == Approx(0.04));
  sched.step();
  sched.step();  // step 2 = pct_start * total - 1: the peak
  CHECK(lr_of(opt) == Approx(1.0));
  CHECK(momentum() == Approx(0.85));
  for (int i = 0; i < 7; ++i) sched.step();  // step 9 = total - 1: the minimum
  CHECK(lr_of(opt) == Approx(1.0 / 25 / 1e4));
  CHECK(momentum() == Approx(0.95));
  sched.step();  // step 10 is still allowed, as in PyTorch; step 11 is not
  CHECK_THROWS_AS(sched.step(), ValueError);
}

TEST_CASE("OneCycleLR cycles Adam's beta1 and checks its arguments") {
  Tensor w = param();
  Adam opt({w}, AdamOptions(0.5).betas({0.9, 0.99}));
  OneCycleLR sched(opt, OneCycleLROptions(0.1, 4).anneal_strategy("linear"));
  auto betas = static_cast<AdamOptions&>(opt.param_groups()[0].options()).betas();
  CHECK(std::get<0>(betas) == Approx(0.95));
  CHECK(std::get<1>(betas) == 0.99);
  Adagrad no_momentum({w});
  CHECK_THROWS_WITH(OneCycleLR(no_momentum, OneCycleLROptions(0.1, 4)),
                    Catch::Contains("optimizer must support momentum"));
  CHECK_THROWS_AS(OneCycleLR(opt, OneCycleLROptions(0.1, 0)), ValueError);
  CHECK_THROWS_AS(OneCycleLR(opt, OneCycleLROptions(0.1, 4).anneal_strategy("step")), ValueError);
}

TEST_CASE("a scheduler's state_dict resumes it") {
  Tensor w = param();
  SGD opt({w}, SGDOptions(1.0));
  StepLR sched(opt, 2, 0.5);
  for (int i = 0; i < 3; ++i) sched.step();
  OptimValues state = sched.state_dict();
  CHECK(std::get<int64_t>(state.at("last_epoch")) == 3);

  Tensor w2 = param();
  SGD opt2({w2}, SGDOptions(1.0));
  StepLR sched2(opt2, 2, 0.5);
  sched2.load_state_dict(state);
  opt2.param_groups()[0].options().set_lr(lr_of(opt));
  sched.step();
  sched2.step();
  CHECK(lr_of(opt2) == lr_of(opt));
  CHECK(sched2.last_epoch() == 4);
}
