// The nnextra C++ modules and functionals: values against closed forms computed
// here, gradients reaching the inputs and parameters, printing, option errors.
#include <cmath>

#include "nn_test_utils.h"

using namespace ember;
using nn_test::check_close;
using nn_test::values;
namespace F = ember::nn::functional;

TEST_CASE("nnextra losses: KLDivLoss batchmean, HuberLoss, MarginRankingLoss, MultiMarginLoss", "[nn][nnextra]") {
  Tensor logp = nn_test::tensor_of({std::log(0.25), std::log(0.75), std::log(0.5), std::log(0.5)}, {2, 2});
  Tensor p = nn_test::tensor_of({0.5, 0.5, 0.5, 0.5}, {2, 2});
  double kl0 = 0.5 * std::log(0.5 / 0.25) + 0.5 * std::log(0.5 / 0.75);
  check_close(nn::KLDivLoss(nn::KLDivLossOptions().reduction("batchmean"))(logp, p), {kl0 / 2}, 1e-12);
  check_close(nn::KLDivLoss()(logp, p), {kl0 / 4}, 1e-12);

  Tensor x = nn_test::tensor_of({0.0, 3.0}, {2});
  Tensor y = nn_test::tensor_of({0.5, 0.0}, {2});
  // delta 1: 0.5 * 0.25 and 1 * (3 - 0.5)
  check_close(nn::HuberLoss(nn::HuberLossOptions().reduction("none"))(x, y), {0.125, 2.5});

  Tensor t = nn_test::tensor_of({1.0, -1.0}, {2});
  // max(0, -t (x1 - x2) + margin): x1 - x2 = (-0.5, 3)
  check_close(nn::MarginRankingLoss(nn::MarginRankingLossOptions().margin(1.0).reduction("sum"))(x, y, t),
              {1.5 + 4.0});

  Tensor logits = nn_test::tensor_of({1.0, 2.0, 0.5}, {1, 3}).requires_grad_();
  Tensor target = from_vector<int64_t>({1}, {1});
  // sum over j != 1 of max(0, 1 - 2 + x_j) / 3 = (0 + 0.5... ) -> (max(0, 0) + max(0, -0.5)) / 3 = 0
  check_close(nn::MultiMarginLoss()(logits, target), {0.0});
  Tensor loss = nn::MultiMarginLoss(nn::MultiMarginLossOptions().margin(2.0))(logits, target);
  check_close(loss, {(1.0 + 0.5) / 3});
  loss.backward();
  check_close(logits.grad(), {1.0 / 3, -2.0 / 3, 1.0 / 3});

  CHECK_THROWS_AS(nn::MultiMarginLoss(nn::MultiMarginLossOptions().p(3)), ValueError);
  CHECK_THROWS_AS(nn::TripletMarginLoss(nn::TripletMarginLossOptions().margin(0.0)), ValueError);
  CHECK_THROWS_AS(nn::SoftMarginLoss("avg"), ValueError);
  std::ostringstream os;
  os << *nn::CosineEmbeddingLoss();
  CHECK(os.str() == "CosineEmbeddingLoss()");
}

TEST_CASE("nnextra layers: CosineSimilarity, PairwiseDistance, PixelShuffle, RMSNorm, Dropout2d", "[nn][nnextra]") {
  Tensor a = nn_test::tensor_of({3, 4, 1, 0}, {2, 2});
  Tensor b = nn_test::tensor_of({4, 3, 2, 0}, {2, 2});
  check_close(nn::CosineSimilarity()(a, b), {24.0 / 25, 1.0}, 1e-12);
  check_close(nn::PairwiseDistance(nn::PairwiseDistanceOptions().p(1.0).eps(0.0))(a, b), {2.0, 1.0});

  Tensor img = arange(8, kFloat64).reshape({1, 8, 1, 1});
  Tensor up = nn::PixelShuffle(2)(img);
  CHECK(up.sizes() == DimVector{1, 2, 2, 2});
  check_close(up, {0, 1, 2, 3, 4, 5, 6, 7});
  check_close(nn::PixelUnshuffle(2)(up), values(img));

  nn::RMSNorm rms(nn::RMSNormOptions({2}).eps(0.0));
  Tensor v = nn_test::tensor_of({3, 4}, {1, 2}).requires_grad_();
  double r = std::sqrt((9.0 + 16.0) / 2);
  check_close(rms(v), {3 / r, 4 / r}, 1e-12);
  rms(v).sum().backward();
  REQUIRE(rms->weight.grad().defined());
  check_close(rms->weight.grad(), {3 / r, 4 / r}, 1e-12);
  std::ostringstream os;
  os << *rms;
  CHECK(os.str() == "RMSNorm([2], eps=0, elementwise_affine=true)");

  nn::Dropout2d drop(0.5);
  Tensor ones_in = ones({64, 16, 3, 3});
  std::vector<double> out = values(drop(ones_in));
  int zeros = 0;
  for (size_t c = 0; c < out.size(); c += 9) {
    for (size_t k = 1; k < 9; ++k) REQUIRE(out[c + k] == out[c]);  // one value per channel
    zeros += out[c] == 0;
    CHECK((out[c] == 0 || out[c] == 2));
  }
  CHECK(zeros > 400);
  CHECK(zeros < 624);
  drop->eval();
  check_close(drop(ones_in).sum(), {64.0 * 16 * 9});
}

TEST_CASE("nnextra functionals: unfold / fold round trip, adaptive_max_pool2d indices", "[nn][nnextra]") {
  Tensor x = arange(16, kFloat64).reshape({1, 1, 4, 4}).requires_grad_();
  Tensor cols = F::unfold(x, {2}, {1}, {0}, {2});
  CHECK(cols.sizes() == DimVector{1, 4, 4});
  // Non-overlapping blocks: fold(unfold(x)) is x.
  check_close(F::fold(cols, {4, 4}, {2}, {1}, {0}, {2}), values(x));
  // Overlapping 3x3 blocks with stride 1: each position counted once per covering block.
  Tensor counts = F::fold(F::unfold(ones({1, 1, 3, 3}), {2}), {3, 3}, {2});
  check_close(counts, {1, 2, 1, 2, 4, 2, 1, 2, 1});
  F::unfold(x, {3}).sum().backward();
  check_close(x.grad(), {1, 2, 2, 1, 2, 4, 4, 2, 2, 4, 4, 2, 1, 2, 2, 1});

  auto [v, idx] = F::adaptive_max_pool2d_with_indices(arange(12, kFloat64).reshape({1, 3, 4}), {2, 3});
  check_close(v, {5, 6, 7, 9, 10, 11});
  check_close(idx, {5, 6, 7, 9, 10, 11});
}
