// Containers, nn::init, gradient clipping, and a small MLP trained with
// ember::optim::SGD the way a libtorch user writes it.
#include <cmath>

#include "nn_test_utils.h"

using namespace ember;
using nn_test::check_close;
using nn_test::values;

namespace {

struct MlpImpl : nn::Module {
  MlpImpl() {
    fc1 = register_module("fc1", nn::Linear(2, 16));
    fc2 = register_module("fc2", nn::Linear(16, 2));
  }
  Tensor forward(Tensor x) { return fc2(nn::ReLU()(fc1(x))); }
  nn::Linear fc1{nullptr}, fc2{nullptr};
};
EMBER_MODULE(Mlp);

}  // namespace

TEST_CASE("Sequential: heterogeneous modules chained; names; indexing", "[nn]") {
  manual_seed(0);
  nn::Sequential seq(nn::Linear(3, 4), nn::ReLU(), nn::Dropout(0.0), nn::Linear(4, 1));
  CHECK(seq->size() == 4);
  CHECK(seq->named_parameters().keys() == std::vector<std::string>{"0.weight", "0.bias", "3.weight", "3.bias"});
  Tensor x = randn({5, 3});
  auto& fc0 = seq->at<nn::LinearImpl>(0);
  auto& fc3 = seq->at<nn::LinearImpl>(3);
  Tensor ref = fc3.forward(relu(fc0.forward(x)));
  CHECK(values(seq(x)) == values(ref));
  CHECK(seq[1]->name() == "ReLU");
  CHECK_THROWS_AS(seq->at<nn::ReLUImpl>(0), ValueError);
  CHECK_THROWS_AS(seq[7], IndexError);

  nn::Sequential named({{"fc", nn::Linear(3, 2)}, {"act", nn::Tanh()}});
  CHECK(named->named_children().keys() == std::vector<std::string>{"fc", "act"});
  named->push_back("out", nn::Sigmoid());
  nn::Sequential nested(named, nn::Linear(2, 2));  // a Sequential inside a Sequential
  CHECK(nested(x).sizes() == DimVector{5, 2});
  CHECK(nested->named_parameters().keys() ==
        std::vector<std::string>{"0.fc.weight", "0.fc.bias", "1.weight", "1.bias"});
  nn::Sequential empty;
  CHECK_THROWS_AS(empty(x), Error);
}

TEST_CASE("ModuleList and ModuleDict register what they hold", "[nn]") {
  nn::ModuleList list(nn::Linear(2, 2), nn::ReLU());
  list->push_back(nn::Linear(2, 1));
  CHECK(list->size() == 3);
  CHECK(list->named_parameters().keys() == std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"});
  Tensor x = randn({1, 2});
  Tensor y = x;
  for (const auto& m : *list)
    if (auto* fc = dynamic_cast<nn::LinearImpl*>(m.get())) y = fc->forward(y);
  CHECK(y.sizes() == DimVector{1, 1});
  CHECK(list->at<nn::LinearImpl>(2).options.out_features() == 1);
  CHECK_THROWS_AS(list[3], IndexError);

  nn::ModuleDict dict({{"enc", nn::Linear(2, 3)}, {"dec", nn::Linear(3, 2)}});
  CHECK(dict->keys() == std::vector<std::string>{"enc", "dec"});
  CHECK(dict->contains("enc"));
  CHECK(dict->at<nn::LinearImpl>("dec").options.in_features() == 3);
  dict->insert("enc", nn::Linear(2, 5));  // replaces, keeping the position
  CHECK(dict->at<nn::LinearImpl>("enc").options.out_features() == 5);
  CHECK(dict->named_parameters().keys() ==
        std::vector<std::string>{"enc.weight", "enc.bias", "dec.weight", "dec.bias"});
  CHECK_THROWS_AS(dict["nope"], IndexError);
}

TEST_CASE("nn::init: gains, fans and the bounds of each initializer", "[nn]") {
  CHECK(nn::init::calculate_gain("relu") == Approx(std::sqrt(2.0)));
  CHECK(nn::init::calculate_gain("tanh") == Approx(5.0 / 3));
  CHECK(nn::init::calculate_gain("leaky_relu", 0.2) == Approx(std::sqrt(2 / 1.04)));
  CHECK(nn::init::calculate_gain("conv2d") == 1);
  CHECK_THROWS_AS(nn::init::calculate_gain("swish"), ValueError);
  Tensor w = empty({64, 32, 3, 3});
  auto [fan_in, fan_out] = nn::init::_calculate_fan_in_and_fan_out(w);
  CHECK(fan_in == 32 * 9);
  CHECK(fan_out == 64 * 9);
  CHECK_THROWS_AS(nn::init::_calculate_fan_in_and_fan_out(empty({3})), ValueError);

  manual_seed(0);
  auto max_abs = [](const Tensor& t) { return t.abs().max().item<double>(); };
  auto std_of = [](const Tensor& t) { return t.std().item<double>(); };
  double kaiming_bound = std::sqrt(3.0) * std::sqrt(2.0) / std::sqrt(288.0);
  nn::init::kaiming_uniform_(w, 0, "fan_in", "relu");
  CHECK(max_abs(w) <= kaiming_bound);
  CHECK(max_abs(w) > 0.95 * kaiming_bound);
  nn::init::kaiming_normal_(w, 0, "fan_out", "relu");
  CHECK(std_of(w) == Approx(std::sqrt(2.0 / 576)).epsilon(0.05));
  double xavier_bound = std::sqrt(6.0 / (288 + 576));
  nn::init::xavier_uniform_(w);
  CHECK(max_abs(w) <= xavier_bound);
  nn::init::xavier_normal_(w, 2);
  CHECK(std_of(w) == Approx(2 * std::sqrt(2.0 / (288 + 576))).epsilon(0.05));
  nn::init::uniform_(w, -0.1, 0.1);
  CHECK(max_abs(w) <= 0.1);
  nn::init::normal_(w, 3, 0.5);
  CHECK(w.mean().item<double>() == Approx(3).epsilon(0.02));
  nn::init::constant_(w, 0.25);
  CHECK(values(w.flatten().slice(0, 0, 2)) == std::vector<double>{0.25, 0.25});
  nn::init::zeros_(w);
  CHECK(max_abs(w) == 0);
  nn::init::ones_(w);
  CHECK(w.sum().item<double>() == w.numel());
  CHECK_THROWS_AS(nn::init::kaiming_uniform_(w, 0, "fan_avg"), ValueError);
  // Initializers do not record autograd on parameters.
  Tensor p = empty({3, 3}).requires_grad_();
  nn::init::xavier_uniform_(p);
  CHECK(p.is_leaf());
}

TEST_CASE("clip_grad_norm_ and clip_grad_value_", "[nn]") {
  Tensor a = zeros({2}).requires_grad_(), b = zeros({1}).requires_grad_(), c = zeros({1}).requires_grad_();
  a.set_grad(nn_test::tensor_of({3, 0}, {2}).to(kFloat32));
  b.set_grad(nn_test::tensor_of({4}, {1}).to(kFloat32));
  double total = nn::utils::clip_grad_norm_({a, b, c}, 1.0);  // c has no gradient: skipped
  CHECK(total == Approx(5));
  check_close(a.grad(), {3 / (5 + 1e-6), 0}, 1e-6);
  check_close(b.grad(), {4 / (5 + 1e-6)}, 1e-6);
  // Under the limit: unchanged.
  CHECK(nn::utils::clip_grad_norm_({a, b}, 10.0) == Approx(1).epsilon(1e-5));
  check_close(b.grad(), {4 / (5 + 1e-6)}, 1e-6);
  // The infinity norm is the largest magnitude.
  b.set_grad(nn_test::tensor_of({-8}, {1}).to(kFloat32));
  CHECK(nn::utils::clip_grad_norm_(b, 2.0, INFINITY) == Approx(8));
  check_close(b.grad(), {-8 * 2 / (8 + 1e-6)}, 1e-5);
  b.set_grad(nn_test::tensor_of({NAN}, {1}).to(kFloat32));
  CHECK_THROWS_AS(nn::utils::clip_grad_norm_(b, 1.0, 2.0, true), Error);

  a.set_grad(nn_test::tensor_of({3, -0.5}, {2}).to(kFloat32));
  nn::utils::clip_grad_value_({a}, 1.0);
  check_close(a.grad(), {1, -0.5});
}

TEST_CASE("A small MLP learns a synthetic two-class problem with SGD", "[nn]") {
  manual_seed(0);
  // Class 1 inside the circle of radius 1, class 0 outside (not linearly separable).
  Tensor x = rand({256, 2}) * 4 - 2;
  Tensor y = (x * x).sum(1).lt(1.0).to(kInt64);
  Mlp model;
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.5).momentum(0.9));
  nn::CrossEntropyLoss loss_fn;
  double first = 0, last = 0;
  for (int epoch = 0; epoch < 300; ++epoch) {
    opt.zero_grad();
    Tensor loss = loss_fn(model(x), y);
    loss.backward();
    opt.step();
    last = loss.item<double>();
    if (epoch == 0) first = last;
  }
  CHECK(first > 0.5);
  CHECK(last < 0.15);
  model->eval();
  NoGradGuard no_grad;
  double accuracy = model(x).argmax(1).eq(y).to(kFloat32).mean().item<double>();
  CHECK(accuracy > 0.95);
}
