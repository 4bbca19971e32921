// Recurrent and attention modules: parameter names and shapes (Python ember.nn's
// state_dict keys), outputs against loops of the cell equations written here,
// shapes of the variants, gradients to every parameter, and a tiny LSTM trained
// with Adam.
#include <cmath>
#include <sstream>
#include <string>

#include "nn_test_utils.h"

using namespace ember;
using nn_test::check_close;
using nn_test::values;

namespace {

using Vec = std::vector<double>;

std::string printed(const nn::Module& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

// The state_dict keys Python's ember.nn.LSTM / GRU / RNN has (torch's order).
std::vector<std::string> rnn_keys(int layers, bool bidirectional, bool bias) {
  std::vector<std::string> keys;
  for (int l = 0; l < layers; ++l)
    for (int d = 0; d < (bidirectional ? 2 : 1); ++d) {
      std::string suffix = "_l" + std::to_string(l) + (d ? "_reverse" : "");
      for (std::string kind : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"})
        if (bias || kind.rfind("weight", 0) == 0) keys.push_back(kind + suffix);
    }
  return keys;
}

// rows [row0, row0 + n) of W [*, cols] times v, plus b's same rows.
Vec affine(const Vec& w, const Vec& b, const Vec& v, int64_t row0, int64_t n) {
  int64_t cols = static_cast<int64_t>(v.size());
  Vec out(n);
  for (int64_t r = 0; r < n; ++r) {
    double s = b[row0 + r];
    for (int64_t c = 0; c < cols; ++c) s += w[(row0 + r) * cols + c] * v[c];
    out[r] = s;
  }
  return out;
}

double sigmoid_(double x) { return 1 / (1 + std::exp(-x)); }

Vec slice(const Vec& v, int64_t start, int64_t n) { return Vec(v.begin() + start, v.begin() + start + n); }

// The four parameters of layer 0 as vectors.
struct Layer0 {
  Vec w_ih, w_hh, b_ih, b_hh;
  explicit Layer0(const nn::Module& m) {
    auto p = m.named_parameters();
    w_ih = values(p["weight_ih_l0"]);
    w_hh = values(p["weight_hh_l0"]);
    b_ih = values(p["bias_ih_l0"]);
    b_hh = values(p["bias_hh_l0"]);
  }
};

void check_grads_flow(nn::Module& m, const Tensor& loss) {
  loss.backward();
  for (const auto& p : m.named_parameters()) {
    INFO(p.key());
    REQUIRE(p.value().grad().defined());
    CHECK(p.value().grad().sizes() == p.value().sizes());
    double norm = 0;
    for (double v : values(p.value().grad())) norm += std::abs(v);
    CHECK(norm > 0);
  }
}

}  // namespace

TEST_CASE("LSTM/GRU/RNN: Python's parameter names, shapes, init bound, printing", "[nn][rnn]") {
  manual_seed(0);
  nn::LSTM lstm(nn::LSTMOptions(3, 5).num_layers(2).bidirectional(true));
  CHECK(lstm->state_dict().keys() == rnn_keys(2, true, true));
  auto p = lstm->named_parameters();
  CHECK(p["weight_ih_l0"].sizes() == DimVector{20, 3});
  CHECK(p["weight_hh_l0_reverse"].sizes() == DimVector{20, 5});
  CHECK(p["weight_ih_l1"].sizes() == DimVector{20, 10});
  CHECK(p["bias_hh_l1_reverse"].sizes() == DimVector{20});
  for (const Tensor& t : lstm->parameters())
    for (double v : values(t)) CHECK(std::abs(v) <= 1 / std::sqrt(5.0));

  nn::GRU gru(nn::GRUOptions(3, 4).bias(false));
  CHECK(gru->state_dict().keys() == rnn_keys(1, false, false));
  CHECK(gru->named_parameters()["weight_hh_l0"].sizes() == DimVector{12, 4});
  nn::RNN rnn(nn::RNNOptions(3, 4).nonlinearity("relu").num_layers(3));
  CHECK(rnn->state_dict().keys() == rnn_keys(3, false, true));
  CHECK(rnn->named_parameters()["weight_ih_l2"].sizes() == DimVector{4, 4});

  CHECK(printed(*lstm) == "LSTM(3, 5, num_layers=2, bidirectional=True)");
  CHECK(printed(*gru) == "GRU(3, 4, bias=False)");
  CHECK(printed(*nn::LSTM(nn::LSTMOptions(2, 3).batch_first(true).dropout(0.5).num_layers(2))) ==
        "LSTM(2, 3, num_layers=2, batch_first=True, dropout=0.5)");
  CHECK(printed(*rnn) == "RNN(3, 4, num_layers=3)");

  CHECK_THROWS_AS(nn::LSTM(0, 3), ValueError);
  CHECK_THROWS_AS(nn::GRU(nn::GRUOptions(2, 3).dropout(1.5)), ValueError);
  CHECK_THROWS_AS(nn::RNN(nn::RNNOptions(2, 3).nonlinearity("sigmoid")), ValueError);
}

TEST_CASE("LSTM: a 1-layer LSTM equals a loop of the cell equations", "[nn][rnn]") {
  manual_seed(1);
  const int64_t T = 3, B = 2, I = 3, H = 4;
  nn::LSTM lstm(I, H);
  lstm->to(kFloat64);
  Tensor x = randn({T, B, I}, kFloat64), h0 = randn({1, B, H}, kFloat64), c0 = randn({1, B, H}, kFloat64);
  auto [out, state] = lstm(x, std::make_tuple(h0, c0));
  auto [hn, cn] = state;

  Layer0 w(*lstm);
  Vec xv = values(x), hv = values(h0), cv = values(c0), ref_out;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t b = 0; b < B; ++b) {
      Vec xt = slice(xv, (t * B + b) * I, I), h = slice(hv, b * H, H);
      Vec gx = affine(w.w_ih, w.b_ih, xt, 0, 4 * H), gh = affine(w.w_hh, w.b_hh, h, 0, 4 * H);
      for (int64_t k = 0; k < H; ++k) {
        double i = sigmoid_(gx[k] + gh[k]), f = sigmoid_(gx[H + k] + gh[H + k]);
        double g = std::tanh(gx[2 * H + k] + gh[2 * H + k]), o = sigmoid_(gx[3 * H + k] + gh[3 * H + k]);
        double& c = cv[b * H + k];
        c = f * c + i * g;
        hv[b * H + k] = o * std::tanh(c);
      }
      for (int64_t k = 0; k < H; ++k) ref_out.push_back(hv[b * H + k]);
    }
  check_close(out, ref_out);
  check_close(hn, hv);
  check_close(cn, cv);

  // No state given: zeros.
  Tensor z = zeros({1, B, H}, kFloat64);
  CHECK(values(std::get<0>(lstm(x))) == values(std::get<0>(lstm(x, std::make_tuple(z, z)))));
}

TEST_CASE("GRU and RNN: 1 layer equals a loop of the cell equations", "[nn][rnn]") {
  manual_seed(2);
  const int64_t T = 3, B = 2, I = 3, H = 4;
  nn::GRU gru(I, H);
  gru->to(kFloat64);
  Tensor x = randn({T, B, I}, kFloat64), h0 = randn({1, B, H}, kFloat64);
  auto [out, hn] = gru(x, h0);
  Layer0 w(*gru);
  Vec xv = values(x), hv = values(h0), ref_out;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t b = 0; b < B; ++b) {
      Vec xt = slice(xv, (t * B + b) * I, I), h = slice(hv, b * H, H);
      Vec gx = affine(w.w_ih, w.b_ih, xt, 0, 3 * H), gh = affine(w.w_hh, w.b_hh, h, 0, 3 * H);
      for (int64_t k = 0; k < H; ++k) {
        double r = sigmoid_(gx[k] + gh[k]), z = sigmoid_(gx[H + k] + gh[H + k]);
        double n = std::tanh(gx[2 * H + k] + r * gh[2 * H + k]);
        hv[b * H + k] = (1 - z) * n + z * h[k];
        ref_out.push_back(hv[b * H + k]);
      }
    }
  check_close(out, ref_out);
  check_close(hn, hv);

  nn::RNN rnn(nn::RNNOptions(I, H).nonlinearity("relu"));
  rnn->to(kFloat64);
  auto [rout, rhn] = rnn(x);
  Layer0 rw(*rnn);
  Vec rh(B * H, 0.0), rref;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t b = 0; b < B; ++b) {
      Vec a = affine(rw.w_ih, rw.b_ih, slice(xv, (t * B + b) * I, I), 0, H);
      Vec c = affine(rw.w_hh, rw.b_hh, slice(rh, b * H, H), 0, H);
      for (int64_t k = 0; k < H; ++k) rh[b * H + k] = std::max(0.0, a[k] + c[k]);
      for (int64_t k = 0; k < H; ++k) rref.push_back(rh[b * H + k]);
    }
  check_close(rout, rref);
  check_close(rhn, rh);
}

TEST_CASE("LSTM: a state_dict with Python's keys loads strictly; wrong keys do not", "[nn][rnn]") {
  manual_seed(3);
  nn::LSTM src(nn::LSTMOptions(2, 3).num_layers(2).bidirectional(true));
  nn::LSTM dst(nn::LSTMOptions(2, 3).num_layers(2).bidirectional(true));
  std::map<std::string, Tensor> sd;
  for (const std::string& key : rnn_keys(2, true, true)) sd[key] = src->named_parameters()[key].detach();
  dst->load_state_dict(sd, /*strict=*/true);
  for (const std::string& key : rnn_keys(2, true, true))
    CHECK(values(dst->named_parameters()[key]) == values(sd[key]));
  Tensor x = randn({4, 2, 2});
  CHECK(values(std::get<0>(dst(x))) == values(std::get<0>(src(x))));
  sd.erase("bias_hh_l1_reverse");
  CHECK_THROWS_AS(dst->load_state_dict(sd, true), Error);
}

TEST_CASE("LSTM/GRU: shapes for bidirectional, batch_first, multi-layer, unbatched", "[nn][rnn]") {
  manual_seed(4);
  nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true).batch_first(true));
  Tensor x = randn({5, 7, 3});  // [B, T, I]
  auto [out, state] = lstm(x);
  CHECK(out.sizes() == DimVector{5, 7, 8});
  CHECK(std::get<0>(state).sizes() == DimVector{4, 5, 4});
  CHECK(std::get<1>(state).sizes() == DimVector{4, 5, 4});
  auto [uout, ustate] = lstm(randn({7, 3}));  // unbatched
  CHECK(uout.sizes() == DimVector{7, 8});
  CHECK(std::get<0>(ustate).sizes() == DimVector{4, 4});

  nn::GRU gru(nn::GRUOptions(3, 6).num_layers(3));
  auto [gout, gh] = gru(randn({7, 5, 3}), zeros({3, 5, 6}));
  CHECK(gout.sizes() == DimVector{7, 5, 6});
  CHECK(gh.sizes() == DimVector{3, 5, 6});
  CHECK_THROWS_AS(gru(randn({7, 5, 3}), zeros({2, 5, 6})), Error);
  CHECK_THROWS_AS(gru(randn({7, 5, 4})), Error);
  CHECK_THROWS_AS(gru(randn({2, 7, 5, 3})), ValueError);
}

TEST_CASE("LSTM/GRU/RNN: gradients reach every parameter", "[nn][rnn]") {
  manual_seed(5);
  nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true));
  check_grads_flow(*lstm, std::get<0>(lstm(randn({4, 2, 3}))).pow(2).sum());
  nn::GRU gru(nn::GRUOptions(3, 4).num_layers(2));
  check_grads_flow(*gru, std::get<0>(gru(randn({4, 2, 3}))).pow(2).sum());
  nn::RNN rnn(nn::RNNOptions(3, 4).bidirectional(true));
  check_grads_flow(*rnn, std::get<0>(rnn(randn({4, 2, 3}))).pow(2).sum());
}

namespace {
struct RecallImpl : nn::Module {
  RecallImpl() {
    lstm = register_module("lstm", nn::LSTM(nn::LSTMOptions(1, 16).batch_first(true)));
    head = register_module("head", nn::Linear(16, 1));
  }
  Tensor forward(const Tensor& x) {
    Tensor out = std::get<0>(lstm(x));
    return head(out.select(1, -1));
  }
  nn::LSTM lstm{nullptr};
  nn::Linear head{nullptr};
};
EMBER_MODULE(Recall);
}  // namespace

TEST_CASE("A tiny LSTM learns to recall the first element of a sequence with Adam", "[nn][rnn]") {
  manual_seed(6);
  Recall model;
  optim::Adam opt(model->parameters(), optim::AdamOptions(0.02));
  double first = 0, last = 0;
  for (int step = 0; step < 300; ++step) {
    Tensor x = randn({32, 5, 1});
    Tensor y = x.select(1, 0);  // the first element, to be remembered over 5 steps
    opt.zero_grad();
    Tensor loss = mse_loss(model(x), y);
    loss.backward();
    opt.step();
    last = loss.item<double>();
    if (step == 0) first = last;
  }
  CHECK(first > 0.5);
  CHECK(last < 0.05);
}

TEST_CASE("LSTMCell/GRUCell/RNNCell: one step of the sequence layers; names; unbatched", "[nn][rnn]") {
  manual_seed(7);
  nn::LSTMCell lcell(3, 4);
  CHECK(lcell->state_dict().keys() == std::vector<std::string>{"weight_ih", "weight_hh", "bias_ih", "bias_hh"});
  CHECK(lcell->weight_ih.sizes() == DimVector{16, 3});
  CHECK(printed(*lcell) == "LSTMCell(3, 4)");
  nn::GRUCell gcell(nn::GRUCellOptions(3, 4).bias(false));
  CHECK(gcell->state_dict().keys() == std::vector<std::string>{"weight_ih", "weight_hh"});
  CHECK(printed(*gcell) == "GRUCell(3, 4, bias=False)");
  nn::RNNCell rcell(nn::RNNCellOptions(3, 4).nonlinearity("relu"));
  CHECK(printed(*rcell) == "RNNCell(3, 4, nonlinearity=relu)");
  CHECK_THROWS_AS(nn::RNNCell(nn::RNNCellOptions(3, 4).nonlinearity("gelu")), ValueError);

  // One step of a cell equals a length-1 sequence of the layer with the same weights.
  Tensor x = randn({2, 3}), h = randn({2, 4}), c = randn({2, 4});
  nn::LSTM lstm(3, 4);
  std::map<std::string, Tensor> sd;
  for (const auto& p : lcell->named_parameters()) sd[p.key() + "_l0"] = p.value().detach();
  lstm->load_state_dict(sd);
  auto [h1, c1] = lcell(x, std::make_tuple(h, c));
  auto [out, state] = lstm(x.unsqueeze(0), std::make_tuple(h.unsqueeze(0), c.unsqueeze(0)));
  check_close(h1, values(out), 1e-6);
  check_close(c1, values(std::get<1>(state)), 1e-6);

  nn::GRU gru(nn::GRUOptions(3, 4).bias(false));
  sd.clear();
  for (const auto& p : gcell->named_parameters()) sd[p.key() + "_l0"] = p.value().detach();
  gru->load_state_dict(sd);
  check_close(gcell(x, h), values(std::get<0>(gru(x.unsqueeze(0), h.unsqueeze(0)))), 1e-6);

  Tensor r = rcell(x);  // no hidden state: zeros
  Tensor ref = relu(linear(x, rcell->weight_ih, rcell->bias_ih) + rcell->bias_hh);
  check_close(r, values(ref), 1e-6);

  // Unbatched: [in] -> [H].
  CHECK(std::get<1>(lcell(randn({3}))).sizes() == DimVector{4});
  CHECK(gcell(randn({3}), randn({4})).sizes() == DimVector{4});
  CHECK_THROWS_AS(rcell(randn({1, 2, 3})), ValueError);

  check_grads_flow(*lcell, std::get<0>(lcell(x, std::make_tuple(h, c))).pow(2).sum() +
                               std::get<1>(lcell(x, std::make_tuple(h, c))).sum());
}

TEST_CASE("MultiheadAttention: torch's parameters, shapes, weights rows sum to 1, gradients", "[nn][attention]") {
  manual_seed(8);
  nn::MultiheadAttention mha(8, 2);
  CHECK(mha->state_dict().keys() ==
        std::vector<std::string>{"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"});
  CHECK(mha->in_proj_weight.sizes() == DimVector{24, 8});
  CHECK(values(mha->in_proj_bias) == Vec(24, 0.0));
  CHECK(printed(*mha) ==
        "MultiheadAttention(\n  (out_proj): Linear(in_features=8, out_features=8, bias=true)\n)");

  Tensor q = randn({5, 3, 8}), kv = randn({7, 3, 8});
  auto [out, w] = mha(q, kv, kv);
  CHECK(out.sizes() == DimVector{5, 3, 8});
  CHECK(w.sizes() == DimVector{3, 5, 7});
  for (double s : values(w.sum(-1))) CHECK(s == Approx(1.0).margin(1e-5));
  auto [out_h, w_h] = mha(q, kv, kv, Tensor(), true, Tensor(), /*average_attn_weights=*/false);
  CHECK(w_h.sizes() == DimVector{3, 2, 5, 7});
  for (double s : values(w_h.sum(-1))) CHECK(s == Approx(1.0).margin(1e-5));
  CHECK(!std::get<1>(mha(q, kv, kv, Tensor(), /*need_weights=*/false)).defined());

  // A padded key gets weight 0.
  Tensor pad = zeros({3, 7}, kBool);
  pad.select(1, 6).fill_(1);
  Tensor wp = std::get<1>(mha(q, kv, kv, pad));
  for (double v : values(wp.select(2, 6))) CHECK(v == 0.0);

  // Separate projections, bias_k/bias_v, zero attention, batch_first.
  nn::MultiheadAttention cross(
      nn::MultiheadAttentionOptions(8, 4).kdim(3).vdim(5).add_bias_kv(true).add_zero_attn(true).batch_first(true));
  CHECK(cross->state_dict().keys() == std::vector<std::string>{"q_proj_weight", "k_proj_weight", "v_proj_weight",
                                                               "in_proj_bias", "bias_k", "bias_v",
                                                               "out_proj.weight", "out_proj.bias"});
  CHECK(cross->k_proj_weight.sizes() == DimVector{8, 3});
  CHECK(cross->bias_k.sizes() == DimVector{1, 1, 8});
  auto [cout_, cw] = cross(randn({2, 5, 8}), randn({2, 6, 3}), randn({2, 6, 5}));
  CHECK(cout_.sizes() == DimVector{2, 5, 8});
  CHECK(cw.sizes() == DimVector{2, 5, 8});  // 6 keys + bias_k + zero attention
  check_grads_flow(*cross, std::get<0>(cross(randn({2, 5, 8}), randn({2, 6, 3}), randn({2, 6, 5}))).pow(2).sum());

  CHECK_THROWS_AS(nn::MultiheadAttention(8, 3), AssertionError);
  CHECK_THROWS_AS(nn::MultiheadAttention(0, 1), ValueError);
}

TEST_CASE("TransformerEncoderLayer: torch's submodules, shapes, eval determinism, gradients", "[nn][attention]") {
  manual_seed(9);
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16));
  CHECK(layer->state_dict().keys() ==
        std::vector<std::string>{"self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
                                 "self_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight",
                                 "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"});
  Tensor src = randn({6, 3, 8});
  CHECK(layer(src).sizes() == DimVector{6, 3, 8});
  layer->eval();
  Tensor a = layer(src);
  CHECK(values(a) == values(layer(src)));
  // Post-norm: every position's output is normalized (mean 0 over features).
  for (double m : values(a.mean(-1))) CHECK(m == Approx(0.0).margin(1e-5));

  // A masked-out key changes nothing for the others: the mask reaches attention.
  Tensor causal = ones({6, 6}, kBool).triu(1);
  Tensor c1 = layer(src, causal);
  Tensor src2 = src.clone();
  src2.select(0, 5).fill_(3.0);
  Tensor c2 = layer(src2, causal);
  check_close(c1.narrow(0, 0, 5), values(c2.narrow(0, 0, 5)), 1e-5);

  nn::TransformerEncoderLayer pre(
      nn::TransformerEncoderLayerOptions(8, 4).dim_feedforward(12).activation("gelu").norm_first(true).batch_first(true).dropout(0.0));
  Tensor x = randn({2, 6, 8});
  Tensor pad = zeros({2, 6}, kBool);
  pad.select(1, 5).fill_(1);
  CHECK(pre(x, Tensor(), pad).sizes() == DimVector{2, 6, 8});
  check_grads_flow(*pre, pre(x).pow(2).sum());
  CHECK_THROWS_AS(nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(8, 2).activation("tanh")), Error);
}

TEST_CASE("docs/cpp_nn.md's recurrent and attention example", "[nn][rnn][attention]") {
  nn::LSTM lstm(nn::LSTMOptions(10, 20).num_layers(2).batch_first(true));
  auto [out, state] = lstm(ember::randn({4, 7, 10}));
  auto [h_n, c_n] = state;
  CHECK(out.sizes() == DimVector{4, 7, 20});
  CHECK(h_n.sizes() == DimVector{2, 4, 20});
  CHECK(c_n.sizes() == DimVector{2, 4, 20});
  nn::MultiheadAttention mha(16, 4);
  Tensor x = ember::randn({5, 2, 16});
  auto [y, weights] = mha(x, x, x);
  CHECK(y.sizes() == DimVector{5, 2, 16});
  CHECK(weights.sizes() == DimVector{2, 5, 5});
  CHECK(!std::get<1>(mha->forward(x, x, x, {}, false)).defined());
}

TEST_CASE("MultiheadAttention: two heads equal softmax(q k^T / sqrt(d)) v per head, then out_proj",
          "[nn][attention]") {
  manual_seed(10);
  const int64_t E = 4, heads = 2, d = 2, L = 3, S = 5;
  nn::MultiheadAttention mha(E, heads);
  mha->to(kFloat64);
  // Non-zero biases, so that they are checked too.
  { NoGradGuard g; mha->in_proj_bias.copy_(randn({3 * E}, kFloat64)); }
  Tensor q = randn({L, 1, E}, kFloat64), k = randn({S, 1, E}, kFloat64), v = randn({S, 1, E}, kFloat64);
  auto [out, w] = mha(q, k, v, Tensor(), true, Tensor(), /*average_attn_weights=*/false);

  const Tensor& W = mha->in_proj_weight;
  const Tensor& b = mha->in_proj_bias;
  auto project = [&](const Tensor& x, int64_t part) {  // [T, 1, E] -> [T, E]
    return linear(x.select(1, 0), W.narrow(0, part * E, E), b.narrow(0, part * E, E));
  };
  Tensor qp = project(q, 0), kp = project(k, 1), vp = project(v, 2);
  std::vector<Tensor> per_head;
  for (int64_t h = 0; h < heads; ++h) {
    Tensor qh = qp.narrow(1, h * d, d), kh = kp.narrow(1, h * d, d), vh = vp.narrow(1, h * d, d);
    Tensor attn = softmax(matmul(qh, kh.t()) / std::sqrt(static_cast<double>(d)), -1);  // [L, S]
    check_close(w.select(0, 0).select(0, h), values(attn), 1e-10);
    per_head.push_back(matmul(attn, vh));
  }
  Tensor ref = linear(cat(per_head, 1), mha->out_proj->weight, mha->out_proj->bias);
  check_close(out.select(1, 0), values(ref), 1e-10);
}
