// The invokers of the elementwise, linalg and nn ops (lib/jit/invokers/): a
// one-node graph built by hand runs through its op's invoker and must give
// what the eager call gives; malformed nodes must give ember::Error.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "../serialize/serialize_test_utils.h"
#include "ember/ember.h"
#include "ember/jit.h"
#include "one_node_graph.h"
#include "dispatch/op_ids/elementwise.h"
#include "dispatch/op_ids/linalg.h"
#include "dispatch/op_ids/nn.h"

using namespace ember;
using namespace ember::jit;
using OneNode = ember::jit::test::OneNodeGraph;

namespace {

std::vector<Tensor> invoke(OpId op, std::vector<Tensor> ins, std::vector<Attr> attrs = {},
                           size_t n_outputs = 1) {
  return OneNode(op, std::move(ins), std::move(attrs), n_outputs).run();
}

// Same dtype, shape and values up to rel_tol (nan == nan).
bool close(const Tensor& a, const Tensor& b, double rel_tol) {
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes()) return false;
  Tensor x = a.to(kFloat64).contiguous(), y = b.to(kFloat64).contiguous();
  const double *p = x.data_ptr<double>(), *q = y.data_ptr<double>();
  for (int64_t i = 0; i < x.numel(); ++i)
    if (!(p[i] == q[i] || (std::isnan(p[i]) && std::isnan(q[i])) ||
          std::abs(p[i] - q[i]) <= rel_tol * (1 + std::abs(q[i]))))
      return false;
  return true;
}

// Bit for bit up to the float64 view.
bool same(const Tensor& a, const Tensor& b) { return close(a, b, 0); }

Tensor floats(std::vector<float> v, IntList sizes) { return from_vector<float>(v, sizes); }
Tensor longs(std::vector<int64_t> v, IntList sizes) { return from_vector<int64_t>(v, sizes); }
Attr ints(IntList v) { return Attr(v); }

}  // namespace

TEST_CASE("elementwise invokers give the eager results", "[jit]") {
  manual_seed(0);
  Tensor x = randn({3, 4}), y = randn({4});
  CHECK(same(invoke(opid::exp, {x})[0], exp(x)));
  CHECK(same(invoke(opid::round, {x * 10}, {Attr(int64_t(1))})[0], round(x * 10, 1)));
  CHECK(same(invoke(opid::gelu, {x}, {Attr("tanh")})[0], gelu(x, "tanh")));
  CHECK(same(invoke(opid::softplus, {x}, {Attr(Scalar(2.0)), Attr(Scalar(1))})[0], softplus(x, 2.0, 1)));
  Tensor odd = floats({NAN, INFINITY, -INFINITY, 1}, {4});
  CHECK(same(invoke(opid::nan_to_num, {odd}, {Attr(1.5), Attr(), Attr(-2.0)})[0],
             nan_to_num(odd, 1.5, std::nullopt, -2.0)));
  CHECK(same(invoke(opid::isnan, {odd})[0], isnan(odd)));

  // Broadcast, alpha, and a Python number as a wrapped 0-dim tensor: an int
  // tensor plus 2.5 is float32 (the wrapped float does not widen to float64).
  CHECK(same(invoke(opid::add, {x, y}, {Attr(Scalar(2))})[0], add(x, y, 2)));
  Tensor n = longs({1, 2, 3}, {3});
  Tensor sum = invoke(opid::add, {n, wrapped_scalar(2.5)}, {Attr(Scalar(1))})[0];
  CHECK(sum.dtype() == kFloat32);
  CHECK(same(sum, add(n, 2.5)));
  CHECK(same(invoke(opid::sub, {wrapped_scalar(1), x}, {Attr(Scalar(1))})[0], rsub(x, 1)));
  CHECK(same(invoke(opid::div, {n, wrapped_scalar(2)}, {Attr("floor")})[0], div(n, 2, "floor")));
  CHECK(same(invoke(opid::div, {x, y}, {Attr()})[0], div(x, y)));
  CHECK(same(invoke(opid::pow, {wrapped_scalar(2), x})[0], pow(2, x)));
  CHECK(same(invoke(opid::ge, {x, y})[0], ge(x, y)));
  CHECK(same(invoke(opid::bitwise_left_shift, {n, wrapped_scalar(2)})[0], bitwise_left_shift(n, 2)));

  // clamp with one bound left out, where and lerp with number operands.
  CHECK(same(invoke(opid::clamp, {x, wrapped_scalar(0), Tensor()})[0], clamp(x, 0)));
  Tensor c = gt(x, 0);
  CHECK(same(invoke(opid::where, {c, x, wrapped_scalar(0.5)})[0], where(c, x, 0.5)));
  CHECK(same(invoke(opid::lerp, {x, zeros({3, 4}), wrapped_scalar(0.25)})[0], lerp(x, zeros({3, 4}), 0.25)));
}

TEST_CASE("elementwise in-place invokers write into their first input", "[jit]") {
  manual_seed(1);
  Tensor x = randn({2, 3});
  Tensor expected = relu(x);
  Tensor target = x.clone();
  auto out = OneNode(opid::relu, {target}, {}, 1, /*in_place=*/true).run();
  CHECK(out[0].impl() == target.impl());
  CHECK(same(target, expected));

  Tensor t2 = x.clone();
  Tensor other = randn({3});
  OneNode(opid::add, {t2, other}, {Attr(Scalar(3))}, 1, true).run();
  CHECK(same(t2, add(x, other, 3)));

  // gelu_ and leaky_relu_ (in-place forms Python does not bind for gelu).
  Tensor t3 = x.clone();
  OneNode(opid::gelu, {t3}, {Attr("tanh")}, 1, true).run();
  CHECK(same(t3, gelu(x, "tanh")));
  Tensor t4 = x.clone();
  OneNode(opid::leaky_relu, {t4}, {Attr(Scalar(0.3))}, 1, true).run();
  CHECK(same(t4, leaky_relu(x, 0.3)));
  // An op without an in-place form refuses a node that writes into a tensor.
  CHECK_THROWS_WITH(OneNode(opid::softplus, {x.clone()}, {Attr(Scalar(1)), Attr(Scalar(20))}, 1, true).run(),
                    Catch::Contains("no in-place form"));

  // The in-place checks run: an int tensor cannot take exp's float result.
  Tensor n = longs({1, 2}, {2});
  CHECK_THROWS_AS(OneNode(opid::exp, {n}, {}, 1, true).run(), Error);
}

TEST_CASE("linalg invokers give the eager results", "[jit]") {
  manual_seed(2);
  Tensor b = randn({3}), m1 = randn({2, 4}), m2 = randn({4, 3});
  CHECK(same(invoke(opid::addmm, {b, m1, m2}, {Attr(Scalar(0.5)), Attr(Scalar(2))})[0],
             addmm(b, m1, m2, 0.5, 2)));
  CHECK(same(invoke(opid::mm, {m1, m2})[0], mm(m1, m2)));
  CHECK(same(invoke(opid::dot, {b, b})[0], dot(b, b)));

  Tensor x = randn({2, 4, 7, 6}), w = randn({6, 2, 3, 3}), bias = randn({6});
  CHECK(same(invoke(opid::conv2d, {x, w, bias}, {ints({2, 1}), ints({1, 2}), ints({1, 1}), Attr(int64_t(2))})[0],
             conv2d(x, w, bias, {2, 1}, IntList{1, 2}, {1, 1}, 2)));
  CHECK(same(invoke(opid::conv2d, {x, w, Tensor()}, {ints({1, 1}), ints({0, 0}), ints({2, 2}), Attr(int64_t(2))})[0],
             conv2d(x, w, {}, {1}, IntList{0}, {2}, 2)));
  Tensor wt = randn({4, 3, 2, 2});
  CHECK(same(invoke(opid::conv_transpose2d, {x, wt, Tensor()},
                    {ints({2, 2}), ints({1, 0}), ints({1, 0}), Attr(int64_t(1)), ints({1, 1})})[0],
             conv_transpose2d(x, wt, {}, {2}, {1, 0}, {1, 0}, 1, {1})));

  std::vector<Attr> window{ints({3, 2}), ints({2, 2}), ints({1, 0}), ints({1, 1}), Attr(true)};
  auto pooled = invoke(opid::max_pool2d_with_indices, {x}, window, 2);
  auto [values, indices] = max_pool2d_with_indices(x, {3, 2}, {2, 2}, {1, 0}, {1, 1}, true);
  CHECK(same(pooled[0], values));
  CHECK(same(pooled[1], indices));
  CHECK(same(invoke(opid::max_pool2d, {x}, window)[0], values));
  CHECK(same(invoke(opid::avg_pool2d, {x}, {ints({2, 2}), ints({1, 2}), ints({1, 1}), Attr(false),
                                            Attr(false), Attr(int64_t(3))})[0],
             avg_pool2d(x, {2}, {1, 2}, {1}, false, false, 3)));
  CHECK(same(invoke(opid::adaptive_avg_pool2d, {x}, {ints({3, 2})})[0], adaptive_avg_pool2d(x, IntList{3, 2})));
}

TEST_CASE("norm and dropout invokers return every output", "[jit]") {
  manual_seed(3);
  Tensor x = randn({4, 3, 2}), w = randn({3}), b = randn({3});

  // Training batch norm: y and the saved statistics, and the same update of the running stats.
  Tensor rm1 = zeros({3}), rv1 = ones({3}), rm2 = zeros({3}), rv2 = ones({3});
  auto got = invoke(opid::batch_norm, {x, rm1, rv1, w, b}, {Attr(true), Attr(0.3), Attr(1e-4)}, 3);
  auto [y, mean, invstd] = native_batch_norm(x, w, b, rm2, rv2, true, 0.3, 1e-4);
  REQUIRE(got.size() == 3);
  CHECK(same(got[0], y));
  CHECK(same(got[1], mean));
  CHECK(same(got[2], invstd));
  CHECK(same(rm1, rm2));
  CHECK(same(rv1, rv2));
  CHECK(same(invoke(opid::batch_norm, {x, rm1, rv1, Tensor(), Tensor()}, {Attr(false), Attr(0.1), Attr(1e-5)}, 3)[0],
             batch_norm(x, rm1, rv1, {}, {}, false)));

  Tensor lw = randn({3, 2});
  auto ln = invoke(opid::layer_norm, {x, lw, Tensor()}, {ints({3, 2}), Attr(1e-5)}, 3);
  auto [ly, lmean, lrstd] = native_layer_norm(x, {3, 2}, lw, {}, 1e-5);
  CHECK(same(ln[0], ly));
  CHECK(same(ln[2], lrstd));
  Tensor g = randn({2, 4, 3});
  auto gn = invoke(opid::group_norm, {g, Tensor(), Tensor()}, {Attr(int64_t(2)), Attr(1e-5)}, 3);
  CHECK(same(gn[0], group_norm(g, 2)));
  CHECK(gn[1].sizes() == DimVector{2, 2});

  // Dropout: y and the mask agree, and two runs draw different masks.
  Tensor big = ones({64, 64});
  auto d1 = invoke(opid::dropout, {big}, {Attr(0.5)}, 2);
  auto d2 = invoke(opid::dropout, {big}, {Attr(0.5)}, 2);
  REQUIRE(d1.size() == 2);
  CHECK(d1[1].dtype() == kBool);
  CHECK(same(d1[0], d1[1].to(kFloat32) * 2));
  CHECK_FALSE(same(d1[1], d2[1]));
  Tensor target = ones({8, 8});
  auto d3 = OneNode(opid::dropout, {target}, {Attr(0.25)}, 2, /*in_place=*/true).run();
  CHECK(d3[0].impl() == target.impl());
  CHECK(same(target, d3[1].to(kFloat32) * (1.0 / 0.75)));
  // The mask comes from the default generator, as the eager call's.
  manual_seed(5);
  auto seeded = invoke(opid::dropout, {big}, {Attr(0.5)}, 2);
  manual_seed(5);
  CHECK(same(seeded[1], std::get<1>(native_dropout(big, 0.5, true))));
}

TEST_CASE("embedding, pad, interpolate and loss invokers give the eager results", "[jit]") {
  manual_seed(4);
  Tensor table = randn({5, 3}), idx = longs({4, 0, 2, 2}, {2, 2});
  CHECK(same(invoke(opid::embedding, {table, idx}, {Attr(int64_t(0))})[0], embedding(idx, table, 0)));
  CHECK(same(invoke(opid::one_hot, {idx}, {Attr(int64_t(6))})[0], one_hot(idx, 6)));

  Tensor x = randn({1, 2, 3, 4});
  CHECK(same(invoke(opid::pad, {x}, {ints({1, 2, 2, 0}), Attr("reflect"), Attr(Scalar(0))})[0],
             pad(x, {1, 2, 2, 0}, "reflect")));
  CHECK(same(invoke(opid::pad, {x}, {ints({1, -1}), Attr("constant"), Attr(Scalar(2.5))})[0],
             pad(x, {1, -1}, "constant", 2.5)));
  // interpolate: "linear" names bilinear on a 4-d input; scales or a size.
  CHECK(same(invoke(opid::interpolate, {x}, {ints({4, 6}), Attr("linear"), Attr(true), Attr(1.5), Attr(1.5)})[0],
             interpolate(x, std::nullopt, std::vector<double>{1.5}, "bilinear", true)));
  CHECK(same(invoke(opid::interpolate, {x}, {ints({5, 7}), Attr("nearest"), Attr(false), Attr(), Attr()})[0],
             interpolate(x, IntList{5, 7})));

  Tensor logits = randn({4, 3}), cls = longs({0, 2, 1, 2}, {4}), cw = rand({3});
  CHECK(same(invoke(opid::cross_entropy, {logits, cls, cw}, {Attr(int64_t(1)), Attr(int64_t(2)), Attr(0.1)})[0],
             cross_entropy(logits, cls, cw, 1, "sum", 0.1)));
  CHECK(same(invoke(opid::nll_loss, {logits, cls, Tensor()}, {Attr(int64_t(-100)), Attr(int64_t(0))})[0],
             nll_loss(logits, cls, {}, -100, "none")));
  Tensor t = rand({4, 3});
  CHECK(same(invoke(opid::smooth_l1_loss, {logits, t}, {Attr(int64_t(1)), Attr(0.5)})[0],
             smooth_l1_loss(logits, t, "mean", 0.5)));
  CHECK(same(invoke(opid::binary_cross_entropy_with_logits, {logits, t, Tensor(), cw}, {Attr(int64_t(2))})[0],
             binary_cross_entropy_with_logits(logits, t, {}, "sum", cw)));
  CHECK(same(invoke(opid::binary_cross_entropy, {sigmoid(logits), t, Tensor()}, {Attr(int64_t(1))})[0],
             binary_cross_entropy(sigmoid(logits), t)));
}

TEST_CASE("malformed nodes of the elementwise, linalg and nn ops give ember::Error", "[jit]") {
  Tensor x = randn({1, 2, 5, 5});
  // conv2d with a 2-d weight: conv2d's own rank check.
  CHECK_THROWS_AS(invoke(opid::conv2d, {x, randn({2, 2}), Tensor()},
                         {ints({1, 1}), ints({0, 0}), ints({1, 1}), Attr(int64_t(1))}),
                  Error);
  // Wrong attribute kinds: a string for conv2d's groups, an int for padding.
  CHECK_THROWS_WITH(invoke(opid::conv2d, {x, randn({2, 2, 3, 3}), Tensor()},
                           {ints({1, 1}), ints({0, 0}), ints({1, 1}), Attr("two")}),
                    Catch::Contains("attribute 3 must be an int"));
  CHECK_THROWS_AS(invoke(opid::max_pool2d, {x}, {ints({2, 2}), Attr(int64_t(2)), ints({0, 0}), ints({1, 1}), Attr(false)}),
                  Error);
  // Missing inputs and attributes.
  CHECK_THROWS_WITH(invoke(opid::add, {x}, {Attr(Scalar(1))}), Catch::Contains("tensor input at position 1"));
  CHECK_THROWS_WITH(invoke(opid::mm, {randn({2, 2}), Tensor()}), Catch::Contains("left out"));
  CHECK_THROWS_AS(invoke(opid::add, {x, x}), Error);
  CHECK_THROWS_AS(invoke(opid::layer_norm, {x, Tensor(), Tensor()}, {ints({5}), Attr("eps")}, 3), Error);
  // Out-of-range values the public functions check.
  Tensor table = randn({4, 2});
  CHECK_THROWS_AS(invoke(opid::embedding, {table, longs({1, 4}, {2})}, {Attr()}), IndexError);
  CHECK_THROWS_AS(invoke(opid::embedding, {table, longs({-1}, {1})}, {Attr()}), IndexError);
  CHECK_THROWS_WITH(invoke(opid::mse_loss, {x, x}, {Attr(int64_t(7))}), Catch::Contains("reduction"));
  CHECK_THROWS_AS(invoke(opid::dropout, {x}, {Attr(1.5)}, 2), Error);
  CHECK_THROWS_AS(invoke(opid::interpolate, {x}, {ints({2, 2}), Attr("linear"), Attr(false), Attr(0.5), Attr()}), Error);
  CHECK_THROWS_AS(invoke(opid::interpolate, {x}, {ints({2, 2}), Attr("cubic"), Attr(false), Attr(), Attr()}), Error);
  CHECK_THROWS_AS(invoke(opid::interpolate, {x}, {ints({2, 2}), Attr("nearest"), Attr(false)}), Error);
  CHECK_THROWS_AS(invoke(opid::avg_pool2d, {x}, {ints({2, 2}), ints({2, 2}), ints({0, 0}), Attr(false), Attr(true), Attr(int64_t(0))}),
                  Error);
  // A node that writes into a tensor other than its first input (no public out= form).
  {
    OneNode n(opid::exp, {x}, {}, 1);
    Value v;
    v.kind = ValueKind::Input;
    n.graph.nodes[n.node].preset = {n.graph.add_value(v)};
    n.preset = {zeros({1, 2, 5, 5})};
    CHECK_THROWS_WITH(n.run(), Catch::Contains("must write into its first input"));
  }
  // threshold_backward is a backward primitive: no invoker, so it cannot be traced.
  CHECK(invoker_for(opid::threshold_backward) == nullptr);
}

TEST_CASE("hostile window and size attributes give errors or quick results, never a hang or a crash", "[jit]") {
  manual_seed(6);
  Tensor x = randn({1, 2, 5, 5});
  // A window of 2^31 - 1 taps that is mostly padding costs what its inside does:
  // on a 5 x 5 input every window covers the whole plane, as a 9 x 9 one with padding 4.
  const int64_t wide = (int64_t(1) << 31) - 1, half = (int64_t(1) << 30) - 1;
  auto got = invoke(opid::max_pool2d_with_indices, {x},
                    {ints({wide, wide}), ints({1, 1}), ints({half, half}), ints({1, 1}), Attr(false)}, 2);
  auto [values, indices] = max_pool2d_with_indices(x, {9, 9}, {1, 1}, {4, 4});
  CHECK(same(got[0], values));
  CHECK(same(got[1], indices));
  CHECK(same(invoke(opid::avg_pool2d, {x}, {ints({wide, wide}), ints({1, 1}), ints({half, half}), Attr(false),
                                            Attr(false), Attr()})[0],
             avg_pool2d(x, {9, 9}, {1, 1}, {4, 4}, false, false)));
  // Past 2^31 - 1 the window arithmetic could overflow: refused.
  CHECK_THROWS_WITH(invoke(opid::max_pool2d, {x}, {ints({int64_t(1) << 40, 2}), ints({1, 1}), ints({0, 0}),
                                                   ints({1, 1}), Attr(false)}),
                    Catch::Contains("at most 2^31 - 1"));
  CHECK_THROWS_AS(invoke(opid::avg_pool2d, {x}, {ints({2, 2}), ints({2, 2}), ints({0, int64_t(1) << 62}),
                                                 Attr(false), Attr(true), Attr()}),
                  Error);
  // Convolution, pad and interpolate arguments whose size arithmetic would overflow.
  Tensor w = randn({2, 2, 3, 3}), wt = randn({2, 3, 3, 3});
  const int64_t huge = int64_t(1) << 62;
  CHECK_THROWS_WITH(invoke(opid::conv2d, {x, w, Tensor()}, {ints({1, 1}), ints({huge, huge}), ints({1, 1}), Attr(int64_t(1))}),
                    Catch::Contains("at most 2^31 - 1"));
  CHECK_THROWS_AS(invoke(opid::conv_transpose2d, {x, wt, Tensor()},
                         {ints({3, 3}), ints({huge, huge}), ints({0, 0}), Attr(int64_t(1)), ints({huge, huge})}),
                  Error);
  CHECK_THROWS_WITH(invoke(opid::pad, {x}, {ints({huge, -huge}), Attr("constant"), Attr(Scalar(0))}),
                    Catch::Contains("at most 2^48"));
  CHECK_THROWS_WITH(invoke(opid::interpolate, {x}, {ints({2, 2}), Attr("nearest"), Attr(false), Attr(NAN), Attr(NAN)}),
                    Catch::Contains("no valid output size"));
  CHECK_THROWS_AS(invoke(opid::interpolate, {x}, {ints({2, 2}), Attr("linear"), Attr(false), Attr(1e300), Attr(1e300)}),
                  Error);
  // An output of 2^62 int64 elements: its byte count would wrap around to a tiny buffer.
  CHECK_THROWS_WITH(invoke(opid::one_hot, {longs({1}, {1})}, {Attr(int64_t(1) << 62)}),
                    Catch::Contains("too many elements"));
}

TEST_CASE("a traced model of these ops runs the same after save and load", "[jit]") {
  manual_seed(7);
  // A small CNN with its parameters and buffers named, and a second input of
  // class indices; numbers (2.5, 0.5, 1) are wrapped 0-dim tensors in the graph.
  Tensor w = randn({4, 3, 3, 3}), b = randn({4}), rm = randn({4}), rv = rand({4}) + 0.5;
  Tensor fc = randn({5, 4}), table = randn({6, 5});
  NamedTensorList params = {{"conv.weight", w}, {"conv.bias", b}, {"bn.running_mean", rm},
                            {"bn.running_var", rv}, {"fc.weight", fc}, {"emb.weight", table}};
  auto fn = [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    Tensor y = conv2d(pad(in[0], {1, 1, 1, 1}, "reflect"), w, b, {1}, "same");
    y = max_pool2d(relu(batch_norm(y, rm, rv)), {2});
    y = adaptive_avg_pool2d(interpolate(y, std::nullopt, std::vector<double>{1.5}, "bilinear"), IntList{1, 1});
    Tensor logits = linear(gelu(y.flatten(1), "tanh"), fc) + embedding(in[1], table) * 0.5;
    Tensor loss = cross_entropy(logits, in[1].remainder(5), {}, -100, "sum", 0.1);
    Tensor n = in[1] + 2.5;  // an int64 tensor plus a number: float32, also after loading
    return {where(gt(logits, 0), logits, 1), loss, n, nan_to_num(log(logits), 0.0, INFINITY, -INFINITY)};
  };
  auto make = [](uint64_t seed) {
    manual_seed(seed);
    return std::vector<Tensor>{randn({2, 3, 6, 6}), from_vector<int64_t>({3, 5}, {2})};
  };
  jit::Module traced = jit::trace(fn, make(0), params);
  ember::test::TempDir dir;
  traced.save(dir.file("cnn.ember"));
  jit::Module loaded = jit::load(dir.file("cnn.ember"));
  std::set<std::string> ops;
  for (const Node& node : loaded.graph().nodes) ops.insert(op_name(node.op));
  for (const char* op : {"pad", "conv2d", "batch_norm", "relu", "max_pool2d", "interpolate",
                         "adaptive_avg_pool2d", "gelu", "mm", "embedding", "mul", "add",
                         "remainder", "cross_entropy", "gt", "where", "log", "nan_to_num"})
    CHECK(ops.count(op) == 1);
  std::vector<Tensor> inputs = make(1), expected = fn(inputs), got = loaded.forward(inputs);
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("output " << i);
    CHECK(close(got[i], expected[i], 1e-5));
  }
  CHECK(got[2].dtype() == kFloat32);
}
