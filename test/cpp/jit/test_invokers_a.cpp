// The invokers of the core, shape_index and reduce groups (lib/jit/invokers/):
// one-node graphs built by hand, each node run through its invoker and compared
// with the eager call, and malformed nodes that must throw ember::Error.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "../nn/nn_test_utils.h"
#include "ember/ember.h"
#include "one_node_graph.h"
#include "dispatch/op_ids/core.h"
#include "dispatch/op_ids/reduce.h"
#include "dispatch/op_ids/shape_index.h"

using namespace ember;
using namespace ember::jit;
using nn_test::values;

namespace {

// A graph of one node of `op` over `inputs` (one_node_graph.h), writing into its
// first input when `inplace`, with traced outputs shaped like `traced`. Runs the
// node's invoker on the same tensors on the CPU.
std::vector<Tensor> invoke(OpId op, const std::vector<Tensor>& inputs, std::vector<Attr> attrs,
                           const std::vector<Tensor>& traced, bool inplace = false) {
  test::OneNodeGraph g(op, inputs, std::move(attrs), traced.size(), inplace);
  for (size_t i = 0; i < traced.size(); ++i) g.set_traced(i, traced[i]);
  return g.run();
}

// Same dtype, shape and values (NaN equal to NaN).
void check_same(const Tensor& got, const Tensor& want) {
  REQUIRE(got.defined());
  CHECK(got.dtype() == want.dtype());
  REQUIRE(got.sizes() == want.sizes());
  std::vector<double> g = values(got), w = values(want);
  for (size_t i = 0; i < g.size(); ++i) CHECK((g[i] == w[i] || (g[i] != g[i] && w[i] != w[i])));
}

void check_same(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) check_same(got[i], want[i]);
}

// A view of base's storage with the eager view's geometry.
void check_view(const Tensor& got, const Tensor& base, const Tensor& want) {
  check_same(got, want);
  CHECK(got.impl()->storage() == base.impl()->storage());
  CHECK(got.strides() == want.strides());
  CHECK(got.storage_offset() == want.storage_offset());
}

Tensor x23() { return from_vector<double>({1, -2, 3, 4, 0, -6}, {2, 3}, kFloat32); }
Tensor x234() { return arange(24, kFloat32).reshape({2, 3, 4}).sub(7.5).mul(0.5); }
Tensor ints(std::vector<int64_t> v) { return from_vector<int64_t>(v, {static_cast<int64_t>(v.size())}); }

}  // namespace

TEST_CASE("view invokers give views like the eager call", "[jit]") {
  Tensor x = x234();
  Tensor nc = x.transpose(0, 2);  // a non-contiguous input
  check_view(invoke(opid::transpose, {x}, {int64_t(0), int64_t(2)}, {nc})[0], x, nc);
  Tensor p = x.permute({2, 0, 1});
  check_view(invoke(opid::permute, {x}, {DimVector{2, 0, 1}}, {p})[0], x, p);
  Tensor v = x.view({6, 4});
  check_view(invoke(opid::view, {x}, {DimVector{6, 4}}, {v})[0], x, v);
  check_view(invoke(opid::slice, {nc}, {int64_t(0), int64_t(1), int64_t(4), int64_t(2)},
                    {nc.slice(0, 1, 4, 2)})[0], x, nc.slice(0, 1, 4, 2));
  check_view(invoke(opid::select, {x}, {int64_t(1), int64_t(2)}, {x.select(1, 2)})[0], x,
             x.select(1, 2));
  Tensor u = x.unsqueeze(1);
  check_view(invoke(opid::unsqueeze, {x}, {int64_t(1)}, {u})[0], x, u);
  Tensor e = x.select(2, 0).unsqueeze(2);
  check_view(invoke(opid::expand, {e}, {DimVector{2, 3, 5}}, {e.expand({2, 3, 5})})[0], x,
             e.expand({2, 3, 5}));
  Tensor sq = zeros({1, 3, 1, 2});
  check_view(invoke(opid::squeeze, {sq}, {DimVector{0, 2}}, {sq.squeeze()})[0], sq, sq.squeeze());
  check_view(invoke(opid::squeeze, {x}, {DimVector{}}, {x})[0], x, x);
  Tensor st = as_strided(x, {3, 2}, {4, 1}, 5);
  check_view(invoke(opid::as_strided, {x}, {DimVector{3, 2}, DimVector{4, 1}, int64_t(5)}, {st})[0],
             x, st);
  check_view(invoke(opid::alias, {nc}, {}, {nc})[0], x, nc);
  // A step larger than the dim keeps one element (its size is computed without overflow).
  Tensor one = x.slice(2, 0, 4, INT64_MAX);
  CHECK(one.size(2) == 1);
  check_view(invoke(opid::slice, {x}, {int64_t(2), int64_t(0), int64_t(4), INT64_MAX}, {one})[0], x, one);
}

TEST_CASE("reduction invokers match the eager reductions", "[jit]") {
  Tensor x = x234();
  Tensor nc = x.transpose(0, 2);
  check_same(invoke(opid::sum, {nc}, {DimVector{1}, true, kFloat64}, {nc.sum(1, true, kFloat64)}),
             {nc.sum(1, true, kFloat64)});
  check_same(invoke(opid::mean, {x}, {DimVector{0, 1, 2}, false, kFloat32}, {x.mean()}), {x.mean()});
  check_same(invoke(opid::prod, {x}, {DimVector{2}, false, kFloat32}, {x.prod(2)}), {x.prod(2)});
  check_same(invoke(opid::amax, {x}, {DimVector{0, 2}, true}, {x.amax({0, 2}, true)}),
             {x.amax({0, 2}, true)});
  auto [mn, mx] = x.aminmax(1);
  check_same(invoke(opid::aminmax, {x}, {DimVector{1}, false}, {mn, mx}), {mn, mx});
  auto [amn, amx] = x.aminmax();
  check_same(invoke(opid::aminmax, {x}, {DimVector{0, 1, 2}, false}, {amn, amx}), {amn, amx});
  auto [vals, idx] = nc.max(1, true);
  check_same(invoke(opid::max_dim, {nc}, {int64_t(1), true}, {vals, idx}), {vals, idx});
  check_same(invoke(opid::argmax, {x}, {Attr(), false}, {x.argmax()}), {x.argmax()});
  check_same(invoke(opid::argmin, {x}, {int64_t(2), true}, {x.argmin(2, true)}), {x.argmin(2, true)});
  auto [var, mean] = var_mean(x, {0, 2}, 0, false);
  check_same(invoke(opid::var_mean, {x}, {DimVector{0, 2}, 0.0, false}, {var, mean}), {var, mean});
  check_same(invoke(opid::std, {x}, {DimVector{1}, 1.0, true}, {x.std(1, 1, true)}),
             {x.std(1, 1, true)});
  Tensor n3 = norm(x, 3.0, {1}, false, kFloat64);
  check_same(invoke(opid::norm, {x}, {3.0, DimVector{1}, false, kFloat64}, {n3}), {n3});
  check_same(invoke(opid::logsumexp, {x}, {DimVector{2}, false}, {x.logsumexp(2)}),
             {x.logsumexp(2)});
  check_same(invoke(opid::any, {x}, {DimVector{1}, false}, {x.any(1)}), {x.any(1)});
  check_same(invoke(opid::count_nonzero, {x}, {DimVector{0}}, {x.count_nonzero(0)}),
             {x.count_nonzero(0)});
  Tensor i = ints({3, -1, 4});
  check_same(invoke(opid::cumsum, {i}, {int64_t(0), kInt64}, {i.cumsum(0)}), {i.cumsum(0)});
  check_same(invoke(opid::softmax, {nc}, {int64_t(1), kFloat32}, {nc.softmax(1)}), {nc.softmax(1)});
  check_same(invoke(opid::log_softmax, {x}, {int64_t(2), kFloat64}, {x.log_softmax(2, kFloat64)}),
             {x.log_softmax(2, kFloat64)});
  Tensor z = scalar_tensor(2.5);  // a 0-dim input: no dims to reduce
  check_same(invoke(opid::sum, {z}, {DimVector{}, false, kFloat32}, {z.sum()}), {z.sum()});
}

TEST_CASE("shape and index invokers match the eager ops", "[jit]") {
  Tensor x = x23();
  Tensor y = x234().select(2, 1);  // non-contiguous [2, 3]
  check_same(invoke(opid::cat, {x, y}, {int64_t(1), kFloat32}, {cat({x, y}, 1)}), {cat({x, y}, 1)});
  check_same(invoke(opid::flip, {y}, {DimVector{0, 1}}, {y.flip({0, 1})}), {y.flip({0, 1})});
  check_same(invoke(opid::tril, {x}, {int64_t(-1)}, {x.tril(-1)}), {x.tril(-1)});
  Tensor gi = from_vector<int64_t>({2, 0, 1, 1}, {2, 2});
  check_same(invoke(opid::gather, {x, gi}, {int64_t(1)}, {x.gather(1, gi)}), {x.gather(1, gi)});
  Tensor vi = ints({2, 0, 2});
  check_same(invoke(opid::index_select, {y, vi}, {int64_t(1)}, {y.index_select(1, vi)}),
             {y.index_select(1, vi)});
  check_same(invoke(opid::take, {y, vi}, {}, {y.take(vi)}), {y.take(vi)});
  check_same(invoke(opid::nonzero, {x}, {}, {x.nonzero()}), {x.nonzero()});
  auto [sv, si] = y.sort(1, true);
  check_same(invoke(opid::sort, {y}, {int64_t(1), true, false}, {sv, si}), {sv, si});
  auto [tv, ti] = x.topk(2, 1, false);
  check_same(invoke(opid::topk, {x}, {int64_t(2), int64_t(1), false, true}, {tv, ti}), {tv, ti});
  Tensor r = ints({3, 1, 3, 2, 1});
  auto [uv, uinv, ucount] = unique(r, true, true, true);
  check_same(invoke(opid::unique, {r}, {Attr()}, {uv, uinv, ucount}), {uv, uinv, ucount});
  // x[:, [2, 0]]: the left-out first index keeps dim 0 whole.
  Tensor ix = index(x, TensorList{Tensor(), ints({2, 0})});
  check_same(invoke(opid::index, {x, Tensor(), ints({2, 0})}, {}, {ix}), {ix});
}

TEST_CASE("in-place index invokers write into their first input", "[jit]") {
  Tensor src = from_vector<double>({10, 20, 30}, {1, 3}, kFloat32);
  Tensor si = from_vector<int64_t>({2, 0, 1}, {1, 3});
  Tensor want = x23().scatter_(1, si, src);
  Tensor self = x23();
  auto out = invoke(opid::scatter_, {self, si, src}, {int64_t(1), std::string()}, {want}, true);
  CHECK(out[0].is_same(self));
  check_same(self, want);

  want = x23().index_add_(0, ints({1}), src, 2);
  self = x23();
  invoke(opid::index_add_, {self, ints({1}), src}, {int64_t(0), Scalar(2)}, {want}, true);
  check_same(self, want);

  Tensor mask = from_vector<uint8_t>({1, 0, 1}, {3}, kBool);
  want = x23().masked_fill_(mask, -1.5);
  self = x23();
  invoke(opid::masked_fill_, {self, mask}, {Scalar(-1.5)}, {want}, true);
  check_same(self, want);

  Tensor vals = from_vector<double>({7, 8}, {2}, kFloat32);
  want = x23();
  want.index_put_(TensorList{ints({0, 1}), ints({2, 2})}, vals, true);
  self = x23();
  invoke(opid::index_put_, {self, vals, ints({0, 1}), ints({2, 2})}, {true}, {want}, true);
  check_same(self, want);
}

TEST_CASE("copy, fill and factory invokers", "[jit]") {
  Tensor x = x234().transpose(0, 1);
  // x.to(float64): a fresh output (first input left out) filled by copy_.
  Tensor want = x.to(kFloat64);
  auto out = invoke(opid::copy_, {Tensor(), x}, {false}, {want});
  check_same(out[0], want);
  Tensor dst = zeros({3, 2, 4});
  invoke(opid::copy_, {dst, x}, {false}, {dst}, true);
  check_same(dst, x);
  check_same(invoke(opid::fill_, {Tensor()}, {Scalar(int64_t(7))}, {full({2, 2}, 7)}),
             {full({2, 2}, 7)});

  Tensor ar = arange(3, 20, 4);
  check_same(invoke(opid::arange, {Tensor()}, {Scalar(int64_t(3)), Scalar(int64_t(4))}, {ar}), {ar});
  Tensor down = arange(5, -5, -3, kFloat32);
  check_same(invoke(opid::arange, {Tensor()}, {Scalar(int64_t(5)), Scalar(int64_t(-3))}, {down}),
             {down});
  Tensor fr = arange(0.5, 2.0, 0.1, kFloat64);
  check_same(invoke(opid::arange, {Tensor()}, {Scalar(0.5), Scalar(0.1)}, {fr}), {fr});
  Tensor none = arange(0, kFloat32);
  check_same(invoke(opid::arange, {Tensor()}, {Scalar(int64_t(0)), Scalar(int64_t(1))}, {none}),
             {none});
  Tensor ls = linspace(-1, 2, 7);
  check_same(invoke(opid::linspace, {Tensor()}, {Scalar(int64_t(-1)), Scalar(int64_t(2))}, {ls}), {ls});
  Tensor ey = eye(3, 4, kInt32);
  check_same(invoke(opid::eye, {Tensor()}, {}, {ey}), {ey});
}

TEST_CASE("random invokers draw fresh numbers with the traced shape", "[jit]") {
  Tensor traced = rand({64});
  std::vector<Attr> attrs{0.0, 1.0, int64_t(0), int64_t(0)};
  Tensor a = invoke(opid::uniform_, {Tensor()}, attrs, {traced})[0];
  Tensor b = invoke(opid::uniform_, {Tensor()}, attrs, {traced})[0];
  CHECK(a.sizes() == traced.sizes());
  CHECK(a.dtype() == kFloat32);
  CHECK(values(a) != values(b));  // the same seed/offset attrs, different draws
  CHECK(a.ge(0).all().item<bool>());
  CHECK(a.lt(1).all().item<bool>());

  Tensor self = zeros({3, 5}, kFloat64);
  invoke(opid::normal_, {self}, {2.0, 0.0, int64_t(1), int64_t(2)}, {self}, true);
  check_same(self, full({3, 5}, 2.0, kFloat64));

  Tensor ri = zeros({200}, kInt64);
  invoke(opid::random_, {Tensor()}, {int64_t(-3), int64_t(4), int64_t(0), int64_t(0)}, {ri});
  Tensor r = invoke(opid::random_, {Tensor()}, {int64_t(-3), int64_t(4), int64_t(0), int64_t(0)}, {ri})[0];
  CHECK(r.ge(-3).all().item<bool>());
  CHECK(r.lt(1).all().item<bool>());
  // random_() on int64: [0, 2^63 - 1], a span of 2^63.
  Tensor full_range = invoke(opid::random_, {Tensor()},
                             {int64_t(0), int64_t(uint64_t(1) << 63), int64_t(0), int64_t(0)}, {ri})[0];
  CHECK(full_range.ge(0).all().item<bool>());

  Tensor perm = invoke(opid::randperm, {Tensor()}, {int64_t(0), int64_t(0)}, {ints({0, 0, 0, 0, 0})})[0];
  check_same(std::get<0>(perm.sort()), arange(5));
  Tensor bern = invoke(opid::bernoulli_, {Tensor()}, {1.0, int64_t(0), int64_t(0)}, {zeros({4})})[0];
  check_same(bern, ones({4}));
}

TEST_CASE("malformed invoker nodes throw ember::Error", "[jit]") {
  Tensor x = x23();
  // An attribute of the wrong kind.
  CHECK_THROWS_AS(invoke(opid::transpose, {x}, {std::string("0"), int64_t(1)}, {x}), Error);
  CHECK_THROWS_AS(invoke(opid::sum, {x}, {int64_t(1), false, kFloat32}, {x}), Error);
  CHECK_THROWS_AS(invoke(opid::norm, {x}, {2.0, DimVector{1}, false, std::string("f")}, {x}), Error);
  // A missing attribute, a missing or left-out input.
  CHECK_THROWS_AS(invoke(opid::select, {x}, {int64_t(0)}, {x}), Error);
  CHECK_THROWS_AS(invoke(opid::gather, {x}, {int64_t(1)}, {x}), Error);
  CHECK_THROWS_AS(invoke(opid::gather, {x, Tensor()}, {int64_t(1)}, {x}), Error);
  // Indices out of range, through the public functions' checks and the kernels'.
  CHECK_THROWS_AS(invoke(opid::select, {x}, {int64_t(0), int64_t(2)}, {x}), IndexError);
  CHECK_THROWS_AS(invoke(opid::select, {x}, {int64_t(5), int64_t(0)}, {x}), IndexError);
  Tensor bad = from_vector<int64_t>({0, 3}, {1, 2});
  CHECK_THROWS_AS(invoke(opid::gather, {x, bad}, {int64_t(1)}, {x}), Error);  // RuntimeError in PyTorch
  CHECK_THROWS_AS(invoke(opid::index_select, {x, ints({-9})}, {int64_t(0)}, {x}), Error);
  CHECK_THROWS_AS(invoke(opid::as_strided, {x}, {DimVector{4, 4}, DimVector{4, 1}, int64_t(0)}, {x}),
                  Error);
  int64_t huge = int64_t(1) << 62;  // (2 - 1) * 2^62 twice: past int64, wrapping to a small reach
  CHECK_THROWS_AS(invoke(opid::as_strided, {x}, {DimVector{2, 2, 2}, DimVector{huge, huge, huge}, int64_t(0)}, {x}),
                  Error);
  CHECK_THROWS_AS(invoke(opid::view, {x}, {DimVector{4, 2}}, {x}), Error);
  int64_t wrap_a = (int64_t(1) << 32) + 1, wrap_b = (int64_t(1) << 32) - 1;  // a * b * a * b wraps to 1
  CHECK_THROWS_AS(invoke(opid::view, {x}, {DimVector{wrap_a, wrap_b, wrap_a, wrap_b, 6}}, {x}), Error);
  // An in-place op that does not write into its first input, a factory with an input.
  CHECK_THROWS_AS(invoke(opid::scatter_add_, {x, ints({0}).view({1, 1}), x}, {int64_t(0)}, {x}), Error);
  CHECK_THROWS_AS(invoke(opid::eye, {x}, {}, {x}), Error);
  CHECK_THROWS_AS(invoke(opid::arange, {Tensor()}, {Scalar(int64_t(0)), Scalar(int64_t(1))}, {x}), Error);
  CHECK_THROWS_AS(invoke(opid::arange, {Tensor()}, {Scalar(int64_t(1)), Scalar(int64_t(1) << 62)},
                         {zeros({8})}), Error);
  CHECK_THROWS_AS(invoke(opid::random_, {Tensor()}, {int64_t(5), int64_t(0), int64_t(0), int64_t(0)},
                         {zeros({2}, kInt64)}), Error);
  CHECK_THROWS_AS(invoke(opid::aminmax, {x234()}, {DimVector{0, 1}, false}, {x, x}), Error);
  CHECK_THROWS_AS(invoke(opid::squeeze, {x}, {DimVector{0, 0}}, {x}), Error);
  CHECK_THROWS_AS(invoke(opid::scatter_value_, {x, ints({0}).view({1, 1})},
                         {int64_t(0), Scalar(1.0), std::string("max")}, {x}, true), Error);
  // Backward helpers have no invoker: they cannot be traced.
  CHECK(invoker_for(opid::slice_backward) == nullptr);
  CHECK(invoker_for(opid::select_backward) == nullptr);
}

TEST_CASE("a traced C++ function of core, shape and reduce ops replays on new inputs", "[jit]") {
  auto fn = [](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    Tensor x = in[0].transpose(0, 1);                     // a view
    Tensor y = cat({x, zeros({1, 3})}, 0).softmax(1);     // a fresh fill_, cat, softmax
    auto [values, indices] = y.sort(1, /*descending=*/true);
    Tensor picked = y.gather(1, indices.slice(1, 0, 1));  // index through a view
    Tensor z = in[0].clone();
    z.select(0, 1).fill_(-1);                             // in place through a view
    return {values.cumsum(1), indices, picked.amax(0), z.sum(0, false, kFloat64)};
  };
  Tensor example = from_vector<double>({1, 2, 3, 4, 5, 6}, {3, 2}, kFloat32);
  jit::Module traced = jit::trace(fn, {example});
  Tensor x = from_vector<double>({0.5, -2, 7, 1, 0, 3}, {3, 2}, kFloat32);
  check_same(traced.forward({x}), fn({x}));
}
