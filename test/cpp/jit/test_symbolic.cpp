// Symbolic sizes (lib/jit/symbolic.h, symbolic_fit.h, shape_specialize.h) from C++:
// expressions, a hand-made symbolic graph run at other batch sizes and through a
// model file, the guards' errors, the checks of hostile symbolic fields, and the
// fit of traces made by the C++ tracer.
#include <catch2/catch.hpp>

#include "../serialize/serialize_test_utils.h"
#include "model_test_graphs.h"
#include "ember/ember.h"
#include "jit/graph_check.h"
#include "jit/interpreter.h"
#include "jit/model_file.h"
#include "jit/symbolic_fit.h"

using namespace ember;
using namespace ember::jit;
using Catch::Contains;
using ember::test::symbolic_mlp_graph;

namespace {

SymExpr expr(std::vector<SymTerm> terms) { return SymExpr{std::move(terms)}; }

// relu(x @ w + (batch - 1) * b): what symbolic_mlp_graph computes.
Tensor expected_mlp(const Graph& g, const Tensor& x) {
  const Tensor& w = g.tensors.at("fc.weight");
  const Tensor& b = g.tensors.at("fc.bias");
  return relu(add(mm(x, w), b, Scalar(x.size(0) - 1)));
}

std::string check_error(const Graph& g) {
  try {
    check_graph(g, "bad");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("symbolic expressions evaluate exactly and print readably", "[jit][symbolic]") {
  std::vector<Symbol> syms(2);
  syms[0].name = "batch";
  syms[1].name = "seq";
  SymExpr product = expr({{1, 1, {0, 1}}, {2, 1, {0}}, {1, 1, {}}});
  CHECK(expr_str(product, syms) == "batch*seq + 2*batch + 1");
  CHECK(evaluate(product, {3, 5}) == 3 * 5 + 6 + 1);
  SymExpr half = expr({{1, 2, {1}}});
  CHECK(expr_str(half, syms) == "seq/2");
  CHECK(evaluate(half, {0, 10}) == 5);
  CHECK(!evaluate(half, {0, 7}).has_value());  // not an integer
  CHECK(!evaluate(expr({{1, 1, {0, 0, 0, 0}}}), {int64_t{1} << 40, 0}).has_value());  // overflow
  CHECK(expr_str(expr({{-1, 1, {0}}, {-3, 1, {}}}), syms) == "-batch - 3");
  CHECK(bare_symbol(expr({{1, 1, {1}}})) == 1);
  CHECK(bare_symbol(half) == -1);
}

TEST_CASE("a symbolic graph runs at other batch sizes, through a file too", "[jit][symbolic]") {
  Graph g = symbolic_mlp_graph();
  check_graph(g, "test");
  ember::test::TempDir dir;
  save_model(g, dir.file("m.ember"));
  Module loaded = jit::load(dir.file("m.ember"));
  CHECK(loaded.graph().symbols.size() == 1);
  CHECK_THAT(loaded.graph_str(), Contains("Float(batch, 4)") && Contains("1 <= batch <= 64"));
  Module module(std::make_shared<Graph>(g));
  for (int64_t n : {1, 2, 7, 64}) {
    Tensor x = randn({n, 3});
    Tensor want = expected_mlp(g, x);
    CHECK(allclose(module(x), want));
    CHECK(allclose(loaded(x), want));
  }
  CHECK_THROWS_WITH(module(randn({65, 3})), Contains("batch must be in [1, 64]"));
  CHECK_THROWS_WITH(module(randn({4, 5})), Contains("has size 5 in dim 1"));
  CHECK_THROWS_WITH(module(randn({4})), Contains("must have 2 dims"));
}

TEST_CASE("check_graph refuses hostile symbolic fields", "[jit][symbolic]") {
  auto edited = [](auto edit) {
    Graph g = symbolic_mlp_graph();
    edit(g);
    return check_error(g);
  };
  CHECK_THAT(edited([](Graph& g) { g.values[3].size_exprs = {7, kStaticDim}; }), Contains("does not exist"));
  CHECK_THAT(edited([](Graph& g) { g.values[3].size_exprs = {0}; }), Contains("symbolic dims for 2 dims"));
  CHECK_THAT(edited([](Graph& g) { g.exprs[1].terms[0].den = 0; }), Contains("denominator 0"));
  CHECK_THAT(edited([](Graph& g) { g.exprs[0].terms[0].symbols = {3}; }), Contains("names symbol 3"));
  CHECK_THAT(edited([](Graph& g) { g.symbols[0].min = 70; }), Contains("invalid guards"));
  CHECK_THAT(edited([](Graph& g) { g.symbols[0].modulus = 0; }), Contains("invalid guards"));
  CHECK_THAT(edited([](Graph& g) { g.nodes[1].sym_attrs[0].attr = 3; }), Contains("do not both exist"));
  CHECK_THAT(edited([](Graph& g) { g.nodes[1].sym_attrs[0].element = 0; }), Contains("must name an int"));
  CHECK_THAT(edited([](Graph& g) { g.values[0].size_exprs = {1, kStaticDim}; }), Contains("is no input's dim"));
  CHECK_THAT(edited([](Graph& g) { g.values[1].value_expr = 0; }), Contains("only 0-dim integer constants"));
  CHECK(edited([](Graph&) {}).empty());
}

TEST_CASE("fit_symbolic finds the sizes that follow the dynamic dims", "[jit][symbolic]") {
  // y = (x.view(b * s) * 2).view(b, s): its view attributes are b*s, then b and s.
  auto fn = [](const std::vector<Tensor>& in) {
    const Tensor& x = in[0];
    Tensor flat = x.reshape({x.size(0) * x.size(1)}).mul(2.0);
    return std::vector<Tensor>{flat.reshape({x.size(0), x.size(1)})};
  };
  FitDesign design;
  design.symbols.resize(2);
  design.symbols[0].name = "b";
  design.symbols[0].traced = 3;
  design.symbols[1].name = "s";
  design.symbols[1].traced = 4;
  design.steps = {1, 1};
  design.input_dims = {{0, 1}};
  std::vector<std::shared_ptr<Graph>> traces;
  for (const auto& p : fit_points(design))
    traces.push_back(std::make_shared<Graph>(jit::trace(fn, {randn({p[0], p[1]})}).graph()));
  std::shared_ptr<Graph> g = fit_symbolic(traces, design);
  CHECK_THAT(g->str(), Contains("[b*s]") && Contains("Float(b, s)"));
  Module m(g);
  Tensor x = randn({5, 9});
  CHECK(allclose(m(x), x * 2.0));

  // A number that is no polynomial of the sizes: min(b, 4) rows.
  auto clipped = [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{in[0].narrow(0, 0, std::min<int64_t>(in[0].size(0), 4))};
  };
  FitDesign one;
  one.symbols.resize(1);
  one.symbols[0].name = "b";
  one.symbols[0].traced = 3;
  one.steps = {1};
  one.input_dims = {{0, -1}};
  traces.clear();
  for (const auto& p : fit_points(one))
    traces.push_back(std::make_shared<Graph>(jit::trace(clipped, {randn({p[0], 2})}).graph()));
  CHECK_THROWS_WITH(fit_symbolic(traces, one), Contains("no polynomial of the dynamic sizes"));
}
