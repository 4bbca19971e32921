// The C++ optimizers: a few steps against values worked out by hand, param
// groups, zero_grad, state dicts and argument checks.
#include <catch2/catch.hpp>

#include <cmath>

#include "ember/autograd.h"
#include "ember/ember.h"

using namespace ember;
using namespace ember::optim;

namespace {

Tensor param(std::vector<double> v) {
  return from_vector<double>(v, {int64_t(v.size())}).requires_grad_();
}

std::vector<double> values(const Tensor& t) {
  Tensor c = t.detach().to(kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

// grad of (w * w).sum() is 2w.
void backward_square(const Tensor& w) { (w * w).sum().backward(); }

void set_grad(Tensor& w, std::vector<double> g) {
  w.set_grad(from_vector<double>(g, {int64_t(g.size())}));
}

}  // namespace

TEST_CASE("SGD with momentum: the first buffer is the gradient") {
  Tensor w = param({1, 2});
  SGD opt({w}, SGDOptions(0.1).momentum(0.9));
  backward_square(w);  // g = [2, 4]; buf = g; w -= 0.1 g
  opt.step();
  CHECK(values(w) == std::vector<double>{0.8, 1.6});
  opt.zero_grad();
  CHECK_FALSE(w.grad().defined());
  backward_square(w);  // g = [1.6, 3.2]; buf = 0.9 [2, 4] + g = [3.4, 6.8]
  opt.step();
  auto v = values(w);
  CHECK(v[0] == Approx(0.46));
  CHECK(v[1] == Approx(0.92));
  auto& s = static_cast<SGDParamState&>(*opt.state().at(w.impl()));
  CHECK(values(s.momentum_buffer())[1] == Approx(6.8));
}

TEST_CASE("SGD with Nesterov momentum, weight decay and dampening") {
  Tensor w = param({1});
  SGD opt({w}, SGDOptions(0.1).momentum(0.5).nesterov(true).weight_decay(0.1));
  set_grad(w, {1});  // g = 1 + 0.1 * 1 = 1.1; buf = 1.1; g + 0.5 buf = 1.65
  opt.step();
  CHECK(values(w)[0] == Approx(1 - 0.165));
  Tensor u = param({1});
  SGD damp({u}, SGDOptions(1).momentum(0.5).dampening(0.5));
  for (int i = 0; i < 2; ++i) {  // buf = 1, then 0.5 * 1 + 0.5 * 1 = 1
    set_grad(u, {1});
    damp.step();
  }
  CHECK(values(u)[0] == Approx(-1));
  CHECK_THROWS_AS(SGD({u}, SGDOptions(0.1).nesterov(true)), ValueError);
}

TEST_CASE("SGD without momentum keeps no state; maximize climbs") {
  Tensor w = param({1});
  SGD opt({w}, SGDOptions(0.5).maximize(true));
  set_grad(w, {2});
  opt.step();
  CHECK(values(w)[0] == Approx(2));
  CHECK(opt.state().empty());
  CHECK(opt.state_dict().state.empty());
}

TEST_CASE("Adam with a constant gradient moves lr per step (bias correction)") {
  Tensor w = param({1, -1});
  Adam opt({w}, AdamOptions(0.1));
  for (int i = 0; i < 3; ++i) {
    set_grad(w, {0.5, -2});
    opt.step();
  }
  auto v = values(w);
  CHECK(v[0] == Approx(0.7).epsilon(1e-6));
  CHECK(v[1] == Approx(-0.7).epsilon(1e-6));
  auto& s = static_cast<AdamParamState&>(*opt.state().at(w.impl()));
  CHECK(s.step() == 3);
  CHECK(values(s.exp_avg())[0] == Approx(0.5 * (1 - std::pow(0.9, 3))));
  CHECK_FALSE(s.max_exp_avg_sq().defined());
}

TEST_CASE("Adam's first step by hand, with L2 weight decay and amsgrad") {
  Tensor w = param({2});
  Adam opt({w}, AdamOptions(0.01).betas({0.5, 0.75}).weight_decay(0.25).amsgrad(true).eps(0));
  set_grad(w, {1});  // g = 1 + 0.25 * 2 = 1.5; m = 0.75, v = 0.5625; m^ = 1.5, v^ = 2.25
  opt.step();
  CHECK(values(w)[0] == Approx(2 - 0.01 * 1.5 / 1.5));
  auto& s = static_cast<AdamParamState&>(*opt.state().at(w.impl()));
  CHECK(values(s.max_exp_avg_sq())[0] == Approx(0.5625));
}

TEST_CASE("AdamW decays the parameter itself") {
  Tensor w = param({1});
  AdamW opt({w}, AdamWOptions(0.1));  // weight_decay 1e-2 by default
  CHECK(static_cast<AdamWOptions&>(opt.defaults()).weight_decay() == 0.01);
  set_grad(w, {3});
  opt.step();  // w = 1 * (1 - 0.1 * 0.01) - 0.1
  CHECK(values(w)[0] == Approx(0.999 - 0.1).epsilon(1e-7));
}

TEST_CASE("RMSprop, plain, centered and with momentum") {
  Tensor a = param({1}), b = param({1}), c = param({1});
  RMSprop plain({a}, RMSpropOptions(0.01).eps(0));
  RMSprop centered({b}, RMSpropOptions(0.01).eps(0).centered(true));
  RMSprop momentum({c}, RMSpropOptions(0.01).eps(0).momentum(0.5));
  for (int i = 0; i < 2; ++i) {
    for (Tensor* t : {&a, &b, &c}) set_grad(*t, {1});
    plain.step();
    centered.step();
    momentum.step();
  }
  // square_avg: 0.01, then 0.99 * 0.01 + 0.01 = 0.0199
  CHECK(values(a)[0] == Approx(1 - 0.01 / 0.1 - 0.01 / std::sqrt(0.0199)));
  // grad_avg: 0.01, then 0.0199; variance 0.01 - 1e-4, then 0.0199 - 0.0199^2
  CHECK(values(b)[0] == Approx(1 - 0.01 / std::sqrt(0.0099) -
                               0.01 / std::sqrt(0.0199 - 0.0199 * 0.0199)));
  // buf: 10, then 0.5 * 10 + 1 / sqrt(0.0199)
  CHECK(values(c)[0] == Approx(1 - 0.01 * 10 - 0.01 * (5 + 1 / std::sqrt(0.0199))));
}

TEST_CASE("Adagrad with lr_decay and an initial accumulator") {
  Tensor w = param({1});
  Adagrad opt({w}, AdagradOptions(0.1).lr_decay(0.5).initial_accumulator_value(1).eps(0));
  auto& s = static_cast<AdagradParamState&>(*opt.state().at(w.impl()));
  CHECK(values(s.sum())[0] == 1);  // state exists from construction on
  set_grad(w, {2});
  opt.step();  // sum = 5; w = 1 - 0.1 * 2 / sqrt(5)
  set_grad(w, {2});
  opt.step();  // sum = 9; clr = 0.1 / 1.5
  CHECK(values(w)[0] == Approx(1 - 0.2 / std::sqrt(5.0) - (0.1 / 1.5) * 2 / 3));
  CHECK(s.step() == 2);
}

TEST_CASE("param groups have their own options; defaults fill the rest") {
  Tensor a = param({1}), b = param({1});
  SGD opt({OptimizerParamGroup({a}), OptimizerParamGroup({b}, std::make_unique<SGDOptions>(1.0))},
          SGDOptions(0.1));
  set_grad(a, {1});
  set_grad(b, {1});
  opt.step();
  CHECK(values(a)[0] == Approx(0.9));
  CHECK(values(b)[0] == Approx(0.0));
  CHECK(opt.param_groups()[0].options().get_lr() == 0.1);
  CHECK(opt.size() == 2);
  CHECK_THROWS_AS(opt.add_param_group(OptimizerParamGroup({a})), ValueError);
  Tensor c = param({1});
  opt.add_param_group(OptimizerParamGroup({c}));
  CHECK(opt.param_groups().size() == 3);
}

TEST_CASE("the step skips parameters without gradients and runs the closure") {
  Tensor a = param({1}), b = param({1});
  SGD opt({a, b}, SGDOptions(0.1));
  Tensor loss = opt.step([&] {
    opt.zero_grad();
    Tensor l = (a * a).sum();
    l.backward();
    return l;
  });
  CHECK(loss.item<double>() == 1);
  CHECK(values(a)[0] == Approx(0.8));
  CHECK(values(b)[0] == 1);
  CHECK_FALSE(a.grad().requires_grad());
}

TEST_CASE("zero_grad(false) zeroes the gradients in place") {
  Tensor w = param({1, 2});
  SGD opt({w}, SGDOptions(0.1));
  backward_square(w);
  Tensor g = w.grad();
  opt.zero_grad(false);
  CHECK(w.grad().is_same(g));
  CHECK(values(g) == std::vector<double>{0, 0});
}

TEST_CASE("optimizers reject bad options and parameters") {
  Tensor w = param({1});
  CHECK_THROWS_WITH(SGD({w}, SGDOptions(-1)), Catch::Contains("Invalid learning rate: -1"));
  CHECK_THROWS_AS(Adam({w}, AdamOptions().betas({1.0, 0.9})), ValueError);
  CHECK_THROWS_AS(RMSprop({w}, RMSpropOptions().alpha(-1)), ValueError);
  CHECK_THROWS_AS(Adagrad({w}, AdagradOptions().lr_decay(-1)), ValueError);
  CHECK_THROWS_WITH(SGD(std::vector<Tensor>{}), Catch::Contains("empty parameter list"));
  Tensor non_leaf = w * 2;
  CHECK_THROWS_WITH(SGD({non_leaf}), Catch::Contains("can't optimize a non-leaf Tensor"));
  CHECK_THROWS_AS(SGD({w, w}), ValueError);
}

TEST_CASE("state_dict round trip: a loaded optimizer continues identically") {
  auto run = [](Optimizer& opt, Tensor& w, int steps) {
    for (int i = 0; i < steps; ++i) {
      opt.zero_grad();
      (w * w * w).sum().backward();
      opt.step();
    }
  };
  Tensor w1 = param({0.5, -1.5});
  Adam a1({w1}, AdamOptions(0.05).amsgrad(true));
  run(a1, w1, 3);
  OptimizerStateDict sd = a1.state_dict();
  REQUIRE(sd.state.count(0));
  CHECK(std::get<Tensor>(sd.state.at(0).at("step")).dtype() == kFloat32);
  CHECK(std::get<std::vector<double>>(sd.param_groups[0].options.at("betas"))[1] == 0.999);

  Tensor w2 = w1.detach().clone().requires_grad_();
  Adam a2({w2}, AdamOptions(1.0));  // lr and state come from the state dict
  a2.load_state_dict(sd);
  CHECK(a2.param_groups()[0].options().get_lr() == 0.05);
  run(a1, w1, 2);
  run(a2, w2, 2);
  CHECK(values(w1) == values(w2));

  SGD other({w2});
  CHECK_THROWS_AS(
      other.load_state_dict(OptimizerStateDict{{}, {{{}, {0}}, {{}, {1}}}}), ValueError);
}
