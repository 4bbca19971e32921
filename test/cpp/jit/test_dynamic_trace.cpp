// ember::jit::trace with dynamic shapes from C++ (include/ember/jit.h): the saved
// file runs at batch 1, 7 and 64 against eager, and a guard violation raises.
#include <catch2/catch.hpp>

#include "ember/ember.h"
#include "ember/jit.h"
#include "ember/nn.h"
#include "jit/graph.h"
#include "../serialize/serialize_test_utils.h"

using namespace ember;
using Catch::Matchers::Contains;

namespace {

bool close(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && allclose(a, b, 1e-5, 1e-6);
}

struct MlpImpl : nn::Module {
  MlpImpl() {
    fc1 = register_module("fc1", nn::Linear(12, 16));
    fc2 = register_module("fc2", nn::Linear(16, 3));
  }
  // x.size(0) in a view: the flattening follows the batch.
  Tensor forward(Tensor x) { return fc2(relu(fc1(x.view({x.size(0), -1})))); }
  nn::Linear fc1{nullptr}, fc2{nullptr};
};
EMBER_MODULE(Mlp);

// Saved, loaded and run at each batch against eager.
void check_batches(const jit::Module& traced, const std::function<Tensor(const Tensor&)>& eager,
                   const std::vector<int64_t>& row) {
  ember::test::TempDir dir;
  traced.save(dir.file("m.ember"));
  jit::Module loaded = jit::load(dir.file("m.ember"));
  NoGradGuard no_grad;
  for (int64_t batch : {1, 7, 64}) {
    std::vector<int64_t> shape = row;
    shape.insert(shape.begin(), batch);
    Tensor x = randn(shape);
    Tensor want = eager(x);
    CHECK(close(traced(x), want));
    CHECK(close(loaded(x), want));
  }
}

}  // namespace

TEST_CASE("jit::trace with dynamic_shapes: a module with x.size(0) in a view", "[jit][symbolic]") {
  manual_seed(0);
  Mlp mlp;
  mlp->eval();
  const jit::Dim batch("batch", 1, 1024);
  jit::Module traced;
  {
    NoGradGuard no_grad;
    traced = jit::trace(mlp, {randn({4, 3, 4})}, {{{0, batch}}});
  }
  CHECK_THAT(traced.graph_str(), Contains("Float(batch, 3)") && Contains("1 <= batch <= 1024"));
  CHECK(traced.named_parameters().count("fc1.weight") == 1);
  check_batches(traced, [&](const Tensor& x) { return mlp(x); }, {3, 4});
  // Guards: the range, a static dim, the rank.
  CHECK_THROWS_WITH(traced(randn({1025, 3, 4})), Contains("batch must be in [1, 1024]"));
  CHECK_THROWS_WITH(traced(randn({2, 3, 5})), Contains("has size 5 in dim 2"));
  CHECK_THROWS(traced(randn({2, 12})));
}

TEST_CASE("jit::trace with dynamic_shapes: a function, two inputs sharing a Dim", "[jit][symbolic]") {
  Tensor w = randn({5, 2});
  auto fn = [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    const Tensor& x = in[0];
    // x.size(0) * 2 rows, then back: the attributes are 2*batch and batch.
    Tensor doubled = cat({x, in[1]}, 0).reshape({x.size(0) * 2, -1});
    return {doubled.matmul(w).reshape({x.size(0), 2, 2}).sum(1)};
  };
  const jit::Dim batch("batch", 1, 64);
  jit::Module traced = jit::trace(fn, {randn({3, 5}), randn({3, 5})}, {{{0, batch}}, {{0, batch}}});
  CHECK_THAT(traced.graph_str(), Contains("2*batch"));
  for (int64_t n : {1, 7, 64}) {
    Tensor a = randn({n, 5}), b = randn({n, 5});
    CHECK(close(traced.forward({a, b})[0], fn({a, b})[0]));
  }
  // Dims with one name must agree at run time.
  CHECK_THROWS_WITH(traced.forward({randn({4, 5}), randn({5, 5})}), Contains("batch"));
}

TEST_CASE("jit::trace with dynamic_shapes: bad specs and specializing models", "[jit][symbolic]") {
  auto id = [](const std::vector<Tensor>& in) -> std::vector<Tensor> { return {in[0] * 2.0}; };
  CHECK_THROWS_AS(jit::Dim("no good"), ValueError);
  CHECK_THROWS_AS(jit::Dim("b", 5, 2), ValueError);
  const jit::Dim b("b");
  CHECK_THROWS_WITH(jit::trace(id, {randn({3})}, {{{0, b}}, {}}), Contains("2 entries for 1"));
  CHECK_THROWS_WITH(jit::trace(id, {randn({3})}, {{{1, b}}}), Contains("names dim 1"));
  CHECK_THROWS_WITH(jit::trace(id, {randn({1, 2})}, {{{0, b}}}), Contains("size of 2 or more"));
  CHECK_THROWS_WITH(jit::trace(id, {randn({9})}, {{{0, jit::Dim("b", 1, 8)}}}),
                    Contains("outside the range"));
  // A model that needs the traced size: the extra trace fails, the error names the size.
  auto fixed = [](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    EMBER_CHECK_VALUE(in[0].size(0) == 4, "this model takes 4 rows");
    return {in[0] + 1.0};
  };
  CHECK_THROWS_WITH(jit::trace(fixed, {randn({4, 2})}, {{{0, b}}}),
                    Contains("specializes a dynamic size") && Contains("b=5 (instead of 4)") &&
                        Contains("this model takes 4 rows"));
  // No Dims: the plain trace.
  jit::Module plain = jit::trace(id, {randn({3})}, jit::DynamicShapes{{}});
  CHECK(plain.graph().symbols.empty());
}

TEST_CASE("jit::trace with dynamic_shapes restores buffers and the generator", "[jit][symbolic]") {
  nn::BatchNorm1d bn(4);
  bn->train();
  Tensor x = randn({6, 4});
  Tensor mean_before = bn->running_mean.clone();
  manual_seed(3);
  Tensor rng_before = get_rng_state();
  jit::Module traced = jit::trace(bn, {x}, {{{0, jit::Dim("batch")}}});
  // The example's own trace updates the statistics once, as eager would; the extra
  // traces do not.
  Tensor eager_stats = mean_before * 0.9 + x.mean(0) * 0.1;
  CHECK(allclose(bn->running_mean, eager_stats, 1e-5, 1e-6));
  CHECK(equal(get_rng_state(), rng_before));
}
