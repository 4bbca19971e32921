// Each layer's output against a reference computed here with loops, its
// default initialization, and that gradients reach every parameter.
#include <cmath>

#include "nn_test_utils.h"

using namespace ember;
using nn_test::check_close;
using nn_test::values;

namespace {

// Backward of the sum of the output; every parameter gets a gradient.
void check_grads_flow(nn::Module& m, const Tensor& out) {
  out.sum().backward();
  for (const auto& p : m.named_parameters()) {
    INFO(p.key());
    REQUIRE(p.value().grad().defined());
    CHECK(p.value().grad().sizes() == p.value().sizes());
  }
}

// Parameters in +-bound.
void check_bound(const Tensor& t, double bound) {
  for (double v : values(t)) CHECK(std::abs(v) <= bound);
}

}  // namespace

TEST_CASE("Linear: x W^T + b, torch's init bounds, gradients", "[nn]") {
  manual_seed(0);
  nn::Linear fc(3, 2);
  check_bound(fc->weight, 1 / std::sqrt(3.0));
  check_bound(fc->bias, 1 / std::sqrt(3.0));
  Tensor x = randn({4, 3});
  auto xv = values(x), w = values(fc->weight), b = values(fc->bias);
  std::vector<double> ref;
  for (int i = 0; i < 4; ++i)
    for (int o = 0; o < 2; ++o) {
      double s = b[o];
      for (int k = 0; k < 3; ++k) s += xv[i * 3 + k] * w[o * 3 + k];
      ref.push_back(s);
    }
  Tensor y = fc(x);
  check_close(y, ref, 1e-5);
  check_grads_flow(*fc, y);
  CHECK_THROWS_AS(fc(randn({4, 5})), Error);
}

TEST_CASE("Bilinear: x1^T W[o] x2 + b[o], with batch dims", "[nn]") {
  manual_seed(1);
  nn::Bilinear bl(2, 3, 4);
  check_bound(bl->weight, 1 / std::sqrt(2.0));
  Tensor x1 = randn({2, 5, 2}), x2 = randn({2, 5, 3});
  Tensor y = bl(x1, x2);
  REQUIRE(y.sizes() == DimVector{2, 5, 4});
  auto a = values(x1), c = values(x2), w = values(bl->weight), b = values(bl->bias);
  std::vector<double> ref;
  for (int n = 0; n < 10; ++n)
    for (int o = 0; o < 4; ++o) {
      double s = b[o];
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) s += a[n * 2 + i] * w[(o * 2 + i) * 3 + j] * c[n * 3 + j];
      ref.push_back(s);
    }
  check_close(y, ref, 1e-5);
  check_grads_flow(*bl, y);
  CHECK_THROWS_AS(bl(randn({5, 3}), randn({5, 3})), Error);
}

TEST_CASE("Conv2d: padding, stride, groups against a direct loop", "[nn]") {
  manual_seed(2);
  nn::Conv2d conv(nn::Conv2dOptions(4, 2, {3, 2}).stride({2, 1}).padding(1).groups(2));
  REQUIRE(conv->weight.sizes() == DimVector{2, 2, 3, 2});
  check_bound(conv->weight, 1 / std::sqrt(2.0 * 3 * 2));
  Tensor x = randn({1, 4, 5, 4});
  Tensor y = conv(x);
  int64_t H = 5, W = 4, OH = (5 + 2 - 3) / 2 + 1, OW = (4 + 2 - 2) / 1 + 1;
  REQUIRE(y.sizes() == DimVector{1, 2, OH, OW});
  auto xv = values(x), w = values(conv->weight), b = values(conv->bias);
  std::vector<double> ref;
  for (int o = 0; o < 2; ++o)
    for (int oh = 0; oh < OH; ++oh)
      for (int ow = 0; ow < OW; ++ow) {
        double s = b[o];
        for (int ci = 0; ci < 2; ++ci)
          for (int kh = 0; kh < 3; ++kh)
            for (int kw = 0; kw < 2; ++kw) {
              int64_t h = oh * 2 - 1 + kh, ww = ow - 1 + kw, c = o * 2 + ci;  // group o has channels 2o, 2o+1
              if (h < 0 || h >= H || ww < 0 || ww >= W) continue;
              s += xv[(c * H + h) * W + ww] * w[((o * 2 + ci) * 3 + kh) * 2 + kw];
            }
        ref.push_back(s);
      }
  check_close(y, ref, 1e-5);
  check_grads_flow(*conv, y);
  CHECK_THROWS_AS(nn::Conv2d(nn::Conv2dOptions(3, 2, 3).groups(2)), ValueError);
}

TEST_CASE("Conv1d: 'same' padding keeps the length; ConvTranspose2d inverts a stride's shape", "[nn]") {
  manual_seed(3);
  nn::Conv1d conv(nn::Conv1dOptions(2, 3, 3).padding("same"));
  Tensor x = randn({2, 2, 7});
  Tensor y = conv(x);
  REQUIRE(y.sizes() == DimVector{2, 3, 7});
  auto xv = values(x), w = values(conv->weight), b = values(conv->bias);
  std::vector<double> ref;
  for (int n = 0; n < 2; ++n)
    for (int o = 0; o < 3; ++o)
      for (int t = 0; t < 7; ++t) {
        double s = b[o];
        for (int c = 0; c < 2; ++c)
          for (int k = 0; k < 3; ++k) {
            int p = t - 1 + k;
            if (p >= 0 && p < 7) s += xv[(n * 2 + c) * 7 + p] * w[(o * 2 + c) * 3 + k];
          }
        ref.push_back(s);
      }
  check_close(y, ref, 1e-5);
  check_grads_flow(*conv, y);

  nn::ConvTranspose2d up(nn::ConvTranspose2dOptions(3, 2, 2).stride(2));
  REQUIRE(up->weight.sizes() == DimVector{3, 2, 2, 2});
  Tensor z = randn({1, 3, 2, 2});
  Tensor u = up(z);
  REQUIRE(u.sizes() == DimVector{1, 2, 4, 4});
  // Stride 2 with a 2x2 kernel: each input pixel paints its own 2x2 block.
  auto zv = values(z), wv = values(up->weight), bv = values(up->bias), uv = values(u);
  for (int o = 0; o < 2; ++o)
    for (int h = 0; h < 4; ++h)
      for (int w2 = 0; w2 < 4; ++w2) {
        double s = bv[o];
        for (int c = 0; c < 3; ++c) s += zv[(c * 2 + h / 2) * 2 + w2 / 2] * wv[((c * 2 + o) * 2 + h % 2) * 2 + w2 % 2];
        CHECK(uv[(o * 4 + h) * 4 + w2] == Approx(s).margin(1e-5));
      }
  check_grads_flow(*up, u);
}

TEST_CASE("Pooling: MaxPool2d, AvgPool2d and AdaptiveAvgPool2d", "[nn]") {
  Tensor x = arange(16, kFloat32).reshape({1, 1, 4, 4});
  check_close(nn::MaxPool2d(2)(x), {5, 7, 13, 15});
  auto [v, idx] = nn::MaxPool2d(2)->forward_with_indices(x);
  CHECK(values(idx) == std::vector<double>{5, 7, 13, 15});
  check_close(nn::AvgPool2d(2)(x), {2.5, 4.5, 10.5, 12.5});
  check_close(nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(1).padding(1))(x).flatten().slice(0, 0, 2), {5, 6});
  // count_include_pad: the corner window covers 4 values and 5 zeros of padding.
  check_close(nn::AvgPool2d(nn::AvgPool2dOptions(3).stride(1).padding(1))(x).flatten().slice(0, 0, 1),
              {(0 + 1 + 4 + 5) / 9.0}, 1e-6);
  check_close(nn::AdaptiveAvgPool2d(1)(x), {7.5});
  check_close(nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({2, 1}))(x), {3.5, 11.5});
}

TEST_CASE("BatchNorm1d: batch statistics and running stats in training, running stats in eval", "[nn]") {
  nn::BatchNorm1d bn(nn::BatchNormOptions(2).momentum(0.5));
  Tensor x = nn_test::tensor_of({1, 10, 3, 20, 5, 30}, {3, 2}).to(kFloat32);
  Tensor y = bn(x);
  // Column 0: mean 3, biased var 8/3; column 1: mean 20, var 200/3.
  double s0 = std::sqrt(8.0 / 3 + 1e-5), s1 = std::sqrt(200.0 / 3 + 1e-5);
  check_close(y, {-2 / s0, -10 / s1, 0, 0, 2 / s0, 10 / s1}, 1e-4);
  // running = 0.5 old + 0.5 batch (unbiased var: 4 and 100).
  check_close(bn->running_mean, {1.5, 10}, 1e-5);
  check_close(bn->running_var, {0.5 + 2, 0.5 + 50}, 1e-4);
  CHECK(bn->num_batches_tracked.item<int64_t>() == 1);
  check_grads_flow(*bn, y * y);
  bn->eval();
  Tensor e = bn(x);
  check_close(e, {(1 - 1.5) / std::sqrt(2.5 + 1e-5), (10 - 10) / std::sqrt(50.5 + 1e-5),
                  (3 - 1.5) / std::sqrt(2.5 + 1e-5), (20 - 10) / std::sqrt(50.5 + 1e-5),
                  (5 - 1.5) / std::sqrt(2.5 + 1e-5), (30 - 10) / std::sqrt(50.5 + 1e-5)},
              1e-4);
  CHECK(bn->num_batches_tracked.item<int64_t>() == 1);  // eval does not count
  CHECK_THROWS_AS(bn(randn({2, 2, 2, 2})), ValueError);
}

TEST_CASE("BatchNorm2d: per-channel statistics; momentum None averages; no running stats", "[nn]") {
  manual_seed(4);
  nn::BatchNorm2d bn(nn::BatchNormOptions(3).momentum(std::nullopt));
  Tensor a = randn({2, 3, 4, 4}), b = randn({2, 3, 4, 4});
  Tensor y = bn(a);
  check_close(y.mean(IntList{0, 2, 3}), {0, 0, 0}, 1e-5);
  bn(b);
  // The cumulative average of the two batch means.
  Tensor expect = (a.mean(IntList{0, 2, 3}) + b.mean(IntList{0, 2, 3})) / 2;
  check_close(bn->running_mean, values(expect), 1e-5);
  nn::BatchNorm2d plain(nn::BatchNormOptions(3).track_running_stats(false).affine(false));
  CHECK(plain->buffers().empty());
  CHECK(plain->parameters().empty());
  plain->eval();  // without running stats, eval still normalizes with the batch
  check_close(plain(a).mean(IntList{0, 2, 3}), {0, 0, 0}, 1e-5);
  CHECK_THROWS_AS(bn(randn({3, 4})), ValueError);
}

TEST_CASE("LayerNorm and GroupNorm against hand-computed statistics", "[nn]") {
  nn::LayerNorm ln(nn::LayerNormOptions({3}));
  Tensor x = nn_test::tensor_of({1, 2, 3, 2, 4, 6}, {2, 3}).to(kFloat32);
  double s0 = std::sqrt(2.0 / 3 + 1e-5), s1 = std::sqrt(8.0 / 3 + 1e-5);
  Tensor y = ln(x);
  check_close(y, {-1 / s0, 0, 1 / s0, -2 / s1, 0, 2 / s1}, 1e-4);
  check_grads_flow(*ln, y * x);

  nn::GroupNorm gn(2, 4);
  Tensor g = nn_test::tensor_of({1, 3, 10, 30}, {1, 4, 1, 1}).to(kFloat32);
  // Groups {1, 3} and {10, 30}: means 2 and 20, variances 1 and 100.
  Tensor z = gn(g);
  check_close(z, {-1 / std::sqrt(1 + 1e-5), 1 / std::sqrt(1 + 1e-5), -10 / std::sqrt(100 + 1e-5),
                  10 / std::sqrt(100 + 1e-5)},
              1e-4);
  check_grads_flow(*gn, z * g);
  CHECK_THROWS_AS(nn::GroupNorm(3, 4), ValueError);
}

TEST_CASE("Dropout: zeroes and rescales in training, identity in eval", "[nn]") {
  manual_seed(5);
  nn::Dropout drop(0.5);
  Tensor x = ones({1000});
  auto v = values(drop(x));
  int zeros = 0;
  for (double e : v) {
    CHECK((e == 0 || e == 2));
    zeros += e == 0;
  }
  CHECK(zeros > 400);
  CHECK(zeros < 600);
  drop->eval();
  CHECK(values(drop(x)) == values(x));
  CHECK_THROWS_AS(nn::Dropout(1.5), ValueError);
}

TEST_CASE("Embedding: rows of the weight; padding_idx row is zero and gets no gradient", "[nn]") {
  manual_seed(6);
  nn::Embedding emb(nn::EmbeddingOptions(5, 3).padding_idx(-1));
  CHECK(*emb->options.padding_idx() == 4);
  check_close(emb->weight.select(0, 4), {0, 0, 0});
  Tensor idx = from_vector<int64_t>({1, 4, 1}, {3});
  Tensor y = emb(idx);
  auto w = values(emb->weight), yv = values(y);
  for (int j = 0; j < 3; ++j) CHECK(yv[j] == w[3 + j]);
  y.sum().backward();
  check_close(emb->weight.grad().select(0, 1), {2, 2, 2});
  check_close(emb->weight.grad().select(0, 4), {0, 0, 0});
}

TEST_CASE("Activations against their formulas", "[nn]") {
  Tensor x = nn_test::tensor_of({-2, -0.5, 0, 1.5}, {4});
  std::vector<double> xs = values(x);
  auto each = [&](double (*f)(double)) {
    std::vector<double> out;
    for (double v : xs) out.push_back(f(v));
    return out;
  };
  check_close(nn::ReLU()(x), each([](double v) { return v > 0 ? v : 0.0; }));
  check_close(nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2))(x),
              each([](double v) { return v > 0 ? v : 0.2 * v; }));
  check_close(nn::GELU()(x), each([](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }), 1e-7);
  check_close(nn::SiLU()(x), each([](double v) { return v / (1 + std::exp(-v)); }));
  check_close(nn::Sigmoid()(x), each([](double v) { return 1 / (1 + std::exp(-v)); }));
  check_close(nn::Tanh()(x), each([](double v) { return std::tanh(v); }));
  double z = 0;
  for (double v : xs) z += std::exp(v);
  std::vector<double> probs;
  for (double v : xs) probs.push_back(std::exp(v) / z);
  check_close(nn::Softmax(0)(x), probs);
  std::vector<double> logp;
  for (double v : xs) logp.push_back(v - std::log(z));
  check_close(nn::LogSoftmax(0)(x), logp);
  // In place: the input itself changes.
  Tensor y = x.clone();
  nn::ReLU(nn::ReLUOptions(true))(y);
  check_close(y, {0, 0, 0, 1.5});
  Tensor same = randn({2, 3});
  CHECK(nn::Identity()(same).is_same(same));
  CHECK(nn::Flatten()(randn({2, 3, 4})).sizes() == DimVector{2, 12});
  CHECK(nn::Flatten(nn::FlattenOptions().start_dim(0))(randn({2, 3, 4})).sizes() == DimVector{24});
}

TEST_CASE("Losses against their formulas", "[nn]") {
  Tensor logits = nn_test::tensor_of({1, 2, 0, 0, 0, 3}, {2, 3});
  Tensor target = from_vector<int64_t>({1, 0}, {2});
  // -log softmax at the target, averaged.
  double l0 = -(2 - std::log(std::exp(1) + std::exp(2) + 1));
  double l1 = -(0 - std::log(2 + std::exp(3)));
  check_close(nn::CrossEntropyLoss()(logits, target), {(l0 + l1) / 2});
  check_close(nn::CrossEntropyLoss(nn::CrossEntropyLossOptions().reduction("sum"))(logits, target), {l0 + l1});
  Tensor weight = nn_test::tensor_of({1, 3, 1}, {3});
  nn::CrossEntropyLoss weighted(nn::CrossEntropyLossOptions().weight(weight));
  CHECK(weighted->named_buffers().keys() == std::vector<std::string>{"weight"});
  check_close(weighted(logits, target), {(3 * l0 + l1) / 4});
  check_close(nn::CrossEntropyLoss(nn::CrossEntropyLossOptions().ignore_index(0))(logits, target), {l0});
  check_close(nn::NLLLoss()(logits, target), {-(2 + 0) / 2.0});

  Tensor a = nn_test::tensor_of({0.5, 2, -1}, {3}), b = nn_test::tensor_of({1, 0, -1}, {3});
  check_close(nn::MSELoss()(a, b), {(0.25 + 4) / 3});
  check_close(nn::L1Loss(nn::L1LossOptions("sum"))(a, b), {2.5});
  // Smooth L1 (beta 1): 0.5 d^2 for |d| < 1, |d| - 0.5 otherwise.
  check_close(nn::SmoothL1Loss()(a, b), {(0.125 + 1.5) / 3});
  check_close(nn::MSELoss(nn::MSELossOptions("none"))(a, b), {0.25, 4, 0});

  Tensor p = nn_test::tensor_of({0.8, 0.3}, {2}), y = nn_test::tensor_of({1, 0}, {2});
  check_close(nn::BCELoss()(p, y), {-(std::log(0.8) + std::log(0.7)) / 2});
  Tensor logit = nn_test::tensor_of({2, -1}, {2});
  auto sig = [](double v) { return 1 / (1 + std::exp(-v)); };
  check_close(nn::BCEWithLogitsLoss()(logit, y), {-(std::log(sig(2)) + std::log(1 - sig(-1))) / 2});
  nn::BCEWithLogitsLoss pos(nn::BCEWithLogitsLossOptions().pos_weight(nn_test::tensor_of({3}, {1})));
  check_close(pos(logit, y), {-(3 * std::log(sig(2)) + std::log(1 - sig(-1))) / 2});
  CHECK_THROWS_AS(nn::MSELoss(nn::MSELossOptions("average")), ValueError);

  // The gradient reaches the input.
  Tensor in = logits.clone().requires_grad_();
  nn::CrossEntropyLoss()(in, target).backward();
  CHECK(in.grad().defined());
}

TEST_CASE("nn::functional names the ops the modules call", "[nn]") {
  namespace F = ember::nn::functional;
  manual_seed(7);
  nn::Conv2d conv(nn::Conv2dOptions(2, 3, 3).padding(1));
  Tensor x = randn({1, 2, 5, 5});
  CHECK(values(F::conv2d(x, conv->weight, conv->bias, {1}, {1})) == values(conv(x)));
  nn::Linear fc(4, 2);
  Tensor v = randn({3, 4});
  CHECK(values(F::linear(v, fc->weight, fc->bias)) == values(fc(v)));
  CHECK(values(F::relu(v)) == values(nn::ReLU()(v)));
  CHECK(values(F::log_softmax(v, 1)) == values(nn::LogSoftmax(1)(v)));
  Tensor target = from_vector<int64_t>({0, 1, 1}, {3});
  CHECK(values(F::cross_entropy(fc(v), target)) == values(nn::CrossEntropyLoss()(fc(v), target)));
  CHECK(values(F::max_pool2d(x, {2})) == values(nn::MaxPool2d(2)(x)));
}
