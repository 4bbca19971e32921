// The recurrent and attention functions from C++ (lib/ops/rnn.cpp, lib/ops/attention.cpp):
// shapes of every layout, values against hand computations and against their own cells,
// gradients reaching every input, and the errors' kinds.
#include <catch2/catch.hpp>

#include <cmath>

#include "ember/ember.h"

using namespace ember;

namespace {

const TensorOptions f64 = TensorOptions(kFloat64);

DimVector dims(std::initializer_list<int64_t> d) { return DimVector(d.begin(), d.end()); }

void require_close(const Tensor& a, const Tensor& b, double tol = 1e-12) {
  REQUIRE(a.sizes() == b.sizes());
  Tensor ac = a.detach().contiguous(), bc = b.detach().contiguous();
  for (int64_t i = 0; i < a.numel(); ++i)
    CHECK(ac.data_ptr<double>()[i] == Approx(bc.data_ptr<double>()[i]).margin(tol));
}

// nn.LSTM-style parameters: per layer and direction w_ih, w_hh, b_ih, b_hh.
TensorList lstm_params(int64_t input, int64_t hidden, int64_t layers, bool bidirectional) {
  TensorList p;
  const int64_t D = bidirectional ? 2 : 1;
  for (int64_t l = 0; l < layers; ++l)
    for (int64_t d = 0; d < D; ++d) {
      p.push_back(randn({4 * hidden, l == 0 ? input : D * hidden}, f64));
      p.push_back(randn({4 * hidden, hidden}, f64));
      p.push_back(randn({4 * hidden}, f64));
      p.push_back(randn({4 * hidden}, f64));
    }
  return p;
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace

TEST_CASE("lstm: output and state shapes for every layout") {
  TensorList p = lstm_params(3, 4, 2, true);
  auto [out, h, c] = lstm(randn({5, 2, 3}, f64), {}, p, true, 2, 0.0, false, true, false);
  CHECK(out.sizes() == dims({5, 2, 8}));
  CHECK(h.sizes() == dims({4, 2, 4}));
  CHECK(c.sizes() == dims({4, 2, 4}));
  auto [out_bf, h_bf, c_bf] = lstm(randn({2, 5, 3}, f64), {}, p, true, 2, 0.0, false, true, true);
  CHECK(out_bf.sizes() == dims({2, 5, 8}));
  CHECK(h_bf.sizes() == dims({4, 2, 4}));
  auto [out_u, h_u, c_u] = lstm(randn({5, 3}, f64), {zeros({4, 4}, f64), zeros({4, 4}, f64)}, p, true,
                                2, 0.0, false, true, false);
  CHECK(out_u.sizes() == dims({5, 8}));
  CHECK(h_u.sizes() == dims({4, 4}));
  CHECK(c_u.sizes() == dims({4, 4}));
}

TEST_CASE("lstm: one step with zero weights is the gate equations on the biases") {
  // Weights zero, h0 = c0 = 0: i = sigmoid(b_i), g = tanh(b_g), o = sigmoid(b_o),
  // c1 = i * g, h1 = o * tanh(c1).
  Tensor b_ih = tensor<double>({0.5, 1.0, -0.3, 0.8}, f64), b_hh = tensor<double>({0.1, 0.0, 0.2, -0.2}, f64);
  TensorList p{zeros({4, 2}, f64), zeros({4, 1}, f64), b_ih, b_hh};
  auto [out, h, c] = lstm(randn({1, 1, 2}, f64), {}, p, true, 1, 0.0, false, false, false);
  const double c1 = sigmoid(0.6) * std::tanh(-0.1), h1 = sigmoid(0.6) * std::tanh(c1);
  CHECK(c.item<double>() == Approx(c1));
  CHECK(h.item<double>() == Approx(h1));
  CHECK(out.item<double>() == Approx(h1));
}

TEST_CASE("lstm over a sequence equals lstm_cell stepped by hand, forward and reverse") {
  TensorList p = lstm_params(3, 2, 1, true);
  Tensor x = randn({4, 2, 3}, f64), h0 = randn({2, 2, 2}, f64), c0 = randn({2, 2, 2}, f64);
  auto [out, h_n, c_n] = lstm(x, {h0, c0}, p, true, 1, 0.0, false, true, false);
  for (int64_t d = 0; d < 2; ++d) {
    Tensor h = h0.select(0, d), c = c0.select(0, d);
    for (int64_t i = 0; i < 4; ++i) {
      const int64_t t = d == 0 ? i : 3 - i;
      std::tie(h, c) = lstm_cell(x.select(0, t), {h, c}, p[4 * d], p[4 * d + 1], p[4 * d + 2], p[4 * d + 3]);
      require_close(out.select(0, t).narrow(1, 2 * d, 2), h);
    }
    require_close(h_n.select(0, d), h);
    require_close(c_n.select(0, d), c);
  }
}

TEST_CASE("gru and rnn: shapes, and gradients reach input, state and every parameter") {
  Tensor x = randn({3, 2, 4}, f64).requires_grad_();
  Tensor h0 = randn({1, 2, 5}, f64).requires_grad_();
  TensorList p{randn({15, 4}, f64).requires_grad_(), randn({15, 5}, f64).requires_grad_()};
  auto [out, h] = gru(x, h0, p, false, 1, 0.0, false, false, false);
  CHECK(out.sizes() == dims({3, 2, 5}));
  sum(out).backward();
  for (const Tensor& t : {x, h0, p[0], p[1]}) {
    REQUIRE(t.grad().defined());
    CHECK(t.grad().sizes() == t.sizes());
  }
  TensorList q{randn({5, 4}, f64), randn({5, 5}, f64)};
  auto [out_r, h_r] = rnn_relu(x.detach(), Tensor(), q, false, 1, 0.0, false, false, false);
  CHECK(h_r.sizes() == dims({1, 2, 5}));
  CHECK(min(out_r).item<double>() >= 0.0);
}

TEST_CASE("recurrent functions raise PyTorch's error kinds") {
  TensorList p = lstm_params(3, 2, 1, false);
  CHECK_THROWS_AS(lstm(randn({1, 2, 3, 3}, f64), {}, p, true, 1, 0.0, false, false, false), ValueError);
  CHECK_THROWS_AS(lstm(randn({2, 2, 4}, f64), {}, p, true, 1, 0.0, false, false, false), Error);
  TensorList with_proj = p;
  with_proj.push_back(randn({1, 2}, f64));
  CHECK_THROWS_AS(lstm(randn({2, 2, 3}, f64), {}, with_proj, true, 1, 0.0, false, false, false),
                  NotImplementedError);
  CHECK_THROWS_WITH(gru_cell(randn({3}, f64), randn({2}, f64), randn({6, 3}, f64), randn({6, 2}, f64)),
                    Catch::Contains("Expected 2D input"));
}

TEST_CASE("scaled_dot_product_attention: values, causal rows and a fully masked query") {
  Tensor q = randn({2, 3, 4}, f64), k = randn({2, 5, 4}, f64), v = randn({2, 5, 6}, f64);
  Tensor expected = matmul(softmax(matmul(q, k.transpose(-2, -1)) / Scalar(2.0), -1), v);  // sqrt(4)
  require_close(scaled_dot_product_attention(q, k, v), expected);
  // Causal: the first query sees only the first key, so it returns v[:, 0].
  Tensor causal = scaled_dot_product_attention(q, k, v, {}, 0.0, true);
  CHECK(causal.sizes() == dims({2, 3, 6}));
  require_close(causal.select(1, 0), v.select(1, 0));
  Tensor mask = ones({3, 5}, TensorOptions(kBool));
  mask.select(0, 1).fill_(false);
  Tensor masked = scaled_dot_product_attention(q, k, v, mask);
  require_close(masked.select(1, 1), zeros({2, 6}, f64));
  require_close(masked.select(1, 0), expected.select(1, 0));
  CHECK_THROWS_AS(scaled_dot_product_attention(q, k, v, mask, 0.0, true), Error);
}

TEST_CASE("multi_head_attention_forward: shapes with the options struct and the short form") {
  const int64_t E = 6, H = 3, L = 4, S = 5, N = 2;
  Tensor query = randn({L, N, E}, f64), key = randn({S, N, E}, f64);
  Tensor w_in = randn({3 * E, E}, f64), b_in = randn({3 * E}, f64);
  Tensor w_out = randn({E, E}, f64), b_out = randn({E}, f64);
  auto opts = MultiheadAttentionForwardFuncOptions(E, H, w_in, b_in, {}, {}, false, 0.0, w_out, b_out)
                  .average_attn_weights(false);
  auto [out, weights] = multi_head_attention_forward(query, key, key, opts);
  CHECK(out.sizes() == dims({L, N, E}));
  CHECK(weights.sizes() == dims({N, H, L, S}));
  auto [out2, avg] = multi_head_attention_forward(query, key, key, E, H, w_in, b_in, w_out, b_out);
  require_close(out2, out);
  require_close(avg, mean(weights, IntList{1}));
  auto [out3, none] = multi_head_attention_forward(query, key, key, opts.need_weights(false));
  require_close(out3, out, 1e-10);
  CHECK_FALSE(none.defined());
  CHECK_THROWS_AS(multi_head_attention_forward(query, key, key, E, 4, w_in, b_in, w_out, b_out),
                  AssertionError);
}
