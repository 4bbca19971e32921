// ember::save / ember::load of an optimizer: a reloaded optimizer continues
// exactly where the saved one was, and malformed files are refused clearly.
#include <catch2/catch.hpp>

#include <cmath>

#include "../serialize/serialize_test_utils.h"
#include "ember/ember.h"

using namespace ember;
using ember::test::TempDir;

namespace {

// Two steps of (w * w).sum() + w.sum() on each parameter.
void train(optim::Optimizer& opt, const std::vector<Tensor>& params, int steps) {
  for (int i = 0; i < steps; ++i) {
    opt.zero_grad();
    Tensor loss = zeros({});
    for (const Tensor& p : params) loss = loss + (p * p).sum() + p.sum();
    loss.backward();
    opt.step();
  }
}

std::vector<Tensor> make_params() {
  return {from_vector<float>({1, -2, 3, 0.5}, {2, 2}).requires_grad_(),
          from_vector<float>({0.25, -1}, {2}).requires_grad_()};
}

}  // namespace

TEST_CASE("an Adam state saved and loaded continues exactly (amsgrad, two groups)") {
  TempDir dir;
  auto a = make_params(), b = make_params();
  optim::Adam opt_a({optim::OptimizerParamGroup({a[0]}),
                     optim::OptimizerParamGroup({a[1]}, std::make_unique<optim::AdamOptions>(0.05))},
                    optim::AdamOptions(0.1).amsgrad(true).betas({0.8, 0.99}));
  train(opt_a, a, 3);
  save(opt_a, dir.file("adam"));

  optim::Adam opt_b({optim::OptimizerParamGroup({b[0]}),
                     optim::OptimizerParamGroup({b[1]}, std::make_unique<optim::AdamOptions>(0.5))},
                    optim::AdamOptions(0.3));
  for (size_t i = 0; i < a.size(); ++i) {
    NoGradGuard no_grad;
    b[i].copy_(a[i]);
  }
  load(opt_b, dir.file("adam"));
  CHECK(opt_b.param_groups()[1].options().get_lr() == Approx(0.05));
  train(opt_a, a, 2);
  train(opt_b, b, 2);
  for (size_t i = 0; i < a.size(); ++i) {
    Tensor x = a[i].detach().contiguous(), y = b[i].detach().contiguous();
    for (int64_t k = 0; k < x.numel(); ++k) CHECK(x.data_ptr<float>()[k] == y.data_ptr<float>()[k]);
  }
}

TEST_CASE("SGD with momentum round-trips; loading a tensor file as an optimizer is refused") {
  TempDir dir;
  auto a = make_params();
  optim::SGD opt(a, optim::SGDOptions(0.1).momentum(0.9).nesterov(true));
  train(opt, a, 2);
  save(opt, dir.file("sgd"));
  optim::SGD other(make_params(), optim::SGDOptions(0.5));
  load(other, dir.file("sgd"));
  CHECK(other.param_groups()[0].options().get_lr() == Approx(0.1));
  optim::OptimizerStateDict sd = other.state_dict();
  REQUIRE(sd.state.count(0));
  CHECK(std::get<Tensor>(sd.state[0]["momentum_buffer"]).sizes() == a[0].sizes());

  save(std::map<std::string, Tensor>{{"x", zeros({2})}}, dir.file("plain"));
  CHECK_THROWS_WITH(load(other, dir.file("plain")), Catch::Contains("does not hold an optimizer state"));
}
