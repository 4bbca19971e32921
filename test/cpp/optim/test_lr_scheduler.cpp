// The C++ learning-rate schedulers: lr sequences against the closed forms (the same
// sequences the Python tests check against torch).
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>

#include "ember/ember.h"

using namespace ember;
using namespace ember::optim;

namespace {

Tensor param() { return zeros({2}).requires_grad_(); }

double lr_of(Optimizer& opt, size_t group = 0) {
  return opt.param_groups()[group].options().get_lr();
}

// The lr of group 0 after construction and after each of `steps` steps.
template <typename Scheduler>
std::vector<double> run(Scheduler& sched, Optimizer& opt, int steps) {
  std::vector<double> lrs = {lr_of(opt)};
  for (int i = 0; i < steps; ++i) {
    sched.step();
    lrs.push_back(lr_of(opt));
    CHECK(sched.get_last_lr()[0] == lrs.back());
  }
  return lrs;
}

void check_sequence(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).margin(1e-12));
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

// ---- the schedulers added after the first five ----------------------------------------

TEST_CASE("ConstantLR, LinearLR and PolynomialLR follow their closed forms") {
  Tensor w = param();
  SGD a({w}, SGDOptions(0.5));
  ConstantLR constant(a, 0.5, 3);
  check_sequence(run(constant, a, 5), {0.25, 0.25, 0.25, 0.5, 0.5, 0.5});

  SGD b({w}, SGDOptions(1.0));
  LinearLR linear(b, 0.2, 1.0, 4);
  check_sequence(run(linear, b, 6), {0.2, 0.4, 0.6, 0.8, 1.0, 1.0, 1.0});

  SGD c({w}, SGDOptions(1.0));
  PolynomialLR poly(c, 4, 2.0);
  std::vector<double> want;
  for (int e = 0; e <= 6; ++e) want.push_back(std::pow(1.0 - std::min(e, 4) / 4.0, 2.0));
  check_sequence(run(poly, c, 6), want);

  CHECK_THROWS_AS(ConstantLR(a, 2.0), ValueError);
  CHECK_THROWS_AS(LinearLR(a, 0.0), ValueError);
}

TEST_CASE("LambdaLR scales the base lr, MultiplicativeLR the current one") {
  Tensor w = param();
  SGD a({w}, SGDOptions(1.0));
  LambdaLR lambda(a, [](int64_t e) { return 1.0 / double(e + 1); });
  check_sequence(run(lambda, a, 3), {1.0, 0.5, 1.0 / 3, 0.25});
  SGD b({w}, SGDOptions(1.0));
  MultiplicativeLR mult(b, [](int64_t) { return 0.5; });
  check_sequence(run(mult, b, 3), {1.0, 0.5, 0.25, 0.125});
  CHECK_THROWS_AS(LambdaLR(a, std::vector<LambdaLR::Lambda>(3, [](int64_t) { return 1.0; })),
                  ValueError);
}

TEST_CASE("CosineAnnealingWarmRestarts restarts with growing periods") {
  Tensor w = param();
  SGD opt({w}, SGDOptions(1.0));
  CosineAnnealingWarmRestarts sched(opt, 2, 2);
  const std::pair<int, int> cur[] = {{0, 2}, {1, 2}, {0, 4}, {1, 4}, {2, 4}, {3, 4}, {0, 8}, {1, 8}};
  std::vector<double> want;
  for (auto [c, t] : cur) want.push_back((1 + std::cos(M_PI * c / t)) / 2);
  check_sequence(run(sched, opt, 7), want);
  CHECK_THROWS_AS(CosineAnnealingWarmRestarts(opt, 0), ValueError);
}

TEST_CASE("CyclicLR goes up and down, momentum inversely") {
  Tensor w = param();
  SGD opt({w}, SGDOptions(0.1).momentum(0.9));
  CyclicLR sched(opt, CyclicLROptions(0.0, 1.0).step_size_up(2));
  check_sequence(run(sched, opt, 6), {0.0, 0.5, 1.0, 0.5, 0.0, 0.5, 1.0});
  CHECK(static_cast<SGDOptions&>(opt.param_groups()[0].options()).momentum() == Approx(0.8));

  SGD opt2({w}, SGDOptions(0.1).momentum(0.9));
  CyclicLR halving(opt2, CyclicLROptions(0.0, 1.0).step_size_up(1).mode("triangular2"));
  check_sequence(run(halving, opt2, 4), {0.0, 1.0, 0.0, 0.5, 0.0});
  CHECK_THROWS_AS(CyclicLR(opt2, CyclicLROptions(0.0, 1.0).mode("zigzag")), ValueError);
}

TEST_CASE("SequentialLR runs a warm-up, then restarts the next scheduler at the milestone") {
  Tensor w = param();
  SGD opt({w}, SGDOptions(1.0));
  auto warmup = std::make_shared<LinearLR>(opt, 0.25, 1.0, 2);
  auto decay = std::make_shared<ExponentialLR>(opt, 0.5);
  SequentialLR sched(opt, {warmup, decay}, {2});
  check_sequence(run(sched, opt, 5), {0.25, 0.625, 1.0, 0.5, 0.25, 0.125});
  CHECK(sched.last_epoch() == 5);
  CHECK_THROWS_AS(SequentialLR(opt, {warmup, decay}, {2, 3}), ValueError);
  SGD other({w}, SGDOptions(1.0));
  auto elsewhere = std::make_shared<StepLR>(other, 2);
  CHECK_THROWS_AS(SequentialLR(opt, {warmup, elsewhere}, {2}), ValueError);
}

TEST_CASE("ChainedScheduler steps every scheduler") {
  Tensor w = param();
  SGD opt({w}, SGDOptions(1.0));
  auto constant = std::make_shared<ConstantLR>(opt, 0.5, 2);
  auto exp = std::make_shared<ExponentialLR>(opt, 0.9);
  ChainedScheduler sched({constant, exp});
  check_sequence(run(sched, opt, 3), {0.5, 0.45, 0.81, 0.729});
  CHECK_THROWS_AS(ChainedScheduler({}), ValueError);
}

TEST_CASE("ReduceLROnPlateau waits for patience, cools down, stops at min_lr") {
  Tensor w = param();
  SGD opt({w}, SGDOptions(1.0));
  ReduceLROnPlateau sched(opt, ReduceLROnPlateauOptions().factor(0.5).patience(1).cooldown(1).min_lr({0.2}));
  std::vector<double> lrs;
  for (int i = 0; i < 9; ++i) {
    sched.step(1.0);
    lrs.push_back(lr_of(opt));
  }
  check_sequence(lrs, {1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.2});
  CHECK(sched.best() == 1.0);
  OptimValues state = sched.state_dict();

  SGD opt2({w}, SGDOptions(0.2));
  ReduceLROnPlateau again(opt2, ReduceLROnPlateauOptions().factor(0.5).patience(1).cooldown(1));
  again.load_state_dict(state);
  CHECK(again.best() == 1.0);
  CHECK(again.last_epoch() == 9);

  CHECK_THROWS_AS(ReduceLROnPlateau(opt, ReduceLROnPlateauOptions().factor(1.0)), ValueError);
  CHECK_THROWS_AS(ReduceLROnPlateau(opt, ReduceLROnPlateauOptions().mode("best")), ValueError);
  CHECK_THROWS_AS(ReduceLROnPlateau(opt, ReduceLROnPlateauOptions().min_lr({0.1, 0.2})), ValueError);
}
