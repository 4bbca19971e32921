// The C++ tracer, jit::Module and the passes, without Python.
#include <catch2/catch.hpp>

#include "ember/ember.h"
#include "jit/graph.h"
#include "jit/passes.h"
#include "jit/tracer.h"

using namespace ember;

namespace {
bool same(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && (a - b).abs().max().item<double>() < 1e-6;
}
}  // namespace

TEST_CASE("jit::trace records ops with named parameters and replays them", "[jit]") {
  manual_seed(0);
  nn::Linear fc(4, 3);
  auto fn = [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    return {relu(fc->forward(in[0])) * 2.0};
  };
  jit::NamedTensorList params;
  for (auto& item : fc->named_parameters()) params.push_back({item.key(), item.value()});
  Tensor x = randn({2, 4});
  jit::Module traced = jit::trace(fn, {x}, params);
  const jit::Graph& g = traced.graph();
  REQUIRE(g.inputs.size() == 1);
  REQUIRE(traced.named_parameters().count("weight") == 1);
  REQUIRE(traced.named_parameters().count("bias") == 1);
  REQUIRE(traced.graph_str().find("%self.weight : Float(3, 4)") != std::string::npos);
  Tensor x2 = randn({2, 4});
  REQUIRE(same(traced(x2), fn({x2})[0]));
  REQUIRE(same(traced.forward({x2})[0], fn({x2})[0]));
}

TEST_CASE("jit::trace: errors end the trace; bad calls are clear", "[jit]") {
  auto throws = [](const std::vector<Tensor>&) -> std::vector<Tensor> {
    throw ValueError("boom");
  };
  REQUIRE_THROWS_AS(jit::trace(throws, {ones({2})}), ValueError);
  REQUIRE_FALSE(jit::is_tracing());
  auto id = [](const std::vector<Tensor>& in) -> std::vector<Tensor> { return {in[0] + 1.0}; };
  jit::Module m = jit::trace(id, {ones({2})});
  REQUIRE_THROWS_WITH(m.forward({}), Catch::Contains("expected 1 input tensor"));
  REQUIRE_THROWS_WITH(m.forward({ones({2}), ones({2})}), Catch::Contains("but got 2"));
  jit::Module empty;
  REQUIRE_THROWS_WITH(empty.forward({ones({2})}), Catch::Contains("empty"));
}

TEST_CASE("jit passes change the graph, not the results", "[jit]") {
  Tensor w = randn({3});
  auto fn = [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    [[maybe_unused]] Tensor unused = in[0] * 5.0;  // dead
    Tensor a = relu(in[0]) + relu(in[0]);        // a repeat
    return {a * (w + 1.0)};                      // w + 1 is constant work
  };
  Tensor x = randn({3});
  jit::Module m = jit::trace(fn, {x});
  Tensor expected = m(x);
  jit::Graph& g = m.graph();
  size_t n0 = g.nodes.size();
  // A number operand (wrapped_scalar) is a constant of the graph, not a node.
  REQUIRE(jit::eliminate_dead_code(g) == 1);     // the mul by 5.0
  REQUIRE(g.nodes.size() == n0 - 1);
  REQUIRE(jit::eliminate_common_subexpressions(g) == 1);  // the second relu
  REQUIRE(jit::fold_constants(g) == 1);          // w + 1.0
  REQUIRE(g.nodes.size() == n0 - 3);
  REQUIRE(same(m(x), expected));
  REQUIRE_THROWS_AS(jit::run_pass(g, "nope"), ValueError);
}
