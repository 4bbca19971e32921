// Pointwise fusion (lib/jit/runtime/fusion.h): which nodes group, and that a fused run
// gives the unfused run's results bit for bit, or declines (touching nothing).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <thread>

#include "dispatch/op_ids/elementwise.h"
#include "dispatch/op_ids/linalg.h"
#include "dispatch/op_ids/reduce.h"
#include "dispatch/op_schema.h"
#include "ember/ember.h"
#include "jit/graph.h"
#include "jit/runtime/fusion.h"
#include "kernels/fused_pointwise.h"
#include "jit/runtime/fusion_run.h"

using namespace ember;
using namespace ember::jit;
namespace rt = ember::jit::runtime;

namespace {

// A graph built node by node; each value's traced dtype and sizes are its tensor's
// (inputs, constants) or the broadcast of its operands' (node outputs).
struct GraphBuilder {
  Graph g;
  std::vector<Tensor> inputs;

  ValueId input(const Tensor& t) {
    Value v;
    v.kind = ValueKind::Input;
    v.name = "x" + std::to_string(inputs.size());
    v.index = static_cast<int32_t>(inputs.size());
    v.dtype = t.dtype();
    v.sizes = t.sizes();
    ValueId id = g.add_value(v);
    g.inputs.push_back(id);
    inputs.push_back(t);
    return id;
  }
  ValueId constant(const Tensor& t, bool wrapped = false) {
    Value v;
    v.kind = ValueKind::Constant;
    v.name = "c" + std::to_string(g.tensors.size());
    v.dtype = t.dtype();
    v.sizes = t.sizes();
    v.wrapped_number = wrapped;
    g.tensors[v.name] = t;
    return g.add_value(v);
  }
  // sizes: the output's, for ops that are not broadcasts (mm, sum).
  ValueId node(OpId op, std::vector<ValueId> ins, std::vector<Attr> attrs = {},
               std::optional<DimVector> out_sizes = std::nullopt) {
    DimVector sizes;
    DType dtype = kFloat32;
    bool have = false;
    for (ValueId v : ins) {
      const Value& val = g.values[static_cast<size_t>(v)];
      if (!out_sizes) sizes = broadcast_shapes(sizes, val.sizes);
      if (!have || val.sizes.size() > 0) dtype = val.dtype;
      have = have || val.sizes.size() > 0;
    }
    if (out_sizes) sizes = *out_sizes;
    int32_t n = g.add_node(op, ins, std::move(attrs), {}, 1);
    ValueId out = g.nodes[static_cast<size_t>(n)].outputs[0];
    g.values[static_cast<size_t>(out)].dtype = dtype;
    g.values[static_cast<size_t>(out)].sizes = sizes;
    return out;
  }
  ValueId write_node(OpId op, ValueId target, std::vector<ValueId> ins, std::vector<Attr> attrs = {}) {
    int32_t n = g.add_node(op, ins, std::move(attrs), {target}, 1);
    ValueId out = g.nodes[static_cast<size_t>(n)].outputs[0];
    g.values[static_cast<size_t>(out)].dtype = g.values[static_cast<size_t>(target)].dtype;
    g.values[static_cast<size_t>(out)].sizes = g.values[static_cast<size_t>(target)].sizes;
    return out;
  }
  void output(ValueId v) { g.outputs.push_back(v); }
};

// Equal bit for bit (any two nans count as equal).
template <typename T>
bool bits_equal(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes() || a.dtype() != b.dtype()) return false;
  Tensor ca = a.contiguous(), cb = b.contiguous();
  const T* x = ca.data_ptr<T>();
  const T* y = cb.data_ptr<T>();
  for (int64_t i = 0; i < ca.numel(); ++i) {
    if (std::isnan(x[i]) && std::isnan(y[i])) continue;
    if (std::memcmp(&x[i], &y[i], sizeof(T)) != 0) return false;
  }
  return true;
}
// The largest distance in units in the last place (nans equal each other only).
template <typename T>
int64_t max_ulps_t(const Tensor& a, const Tensor& b) {
  using I = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  Tensor ca = a.contiguous(), cb = b.contiguous();
  const T* x = ca.data_ptr<T>();
  const T* y = cb.data_ptr<T>();
  int64_t worst = 0;
  for (int64_t i = 0; i < ca.numel(); ++i) {
    if (std::isnan(x[i]) || std::isnan(y[i])) {
      if (!(std::isnan(x[i]) && std::isnan(y[i]))) return INT64_MAX;
      continue;
    }
    I ix, iy;
    std::memcpy(&ix, &x[i], sizeof(T));
    std::memcpy(&iy, &y[i], sizeof(T));
    // Signed magnitudes to a monotonic integer line.
    int64_t lx = ix < 0 ? -int64_t(ix & std::numeric_limits<I>::max()) : int64_t(ix);
    int64_t ly = iy < 0 ? -int64_t(iy & std::numeric_limits<I>::max()) : int64_t(iy);
    worst = std::max(worst, lx > ly ? lx - ly : ly - lx);
  }
  return worst;
}
int64_t max_ulps(const Tensor& a, const Tensor& b) {
  return a.dtype() == kFloat64 ? max_ulps_t<double>(a, b) : max_ulps_t<float>(a, b);
}
bool identical(const Tensor& a, const Tensor& b) {
  return a.dtype() == kFloat64 ? bits_equal<double>(a, b) : bits_equal<float>(a, b);
}

struct Runs {
  std::vector<Tensor> plain, fused;
  rt::FusionRunStats stats;
  std::vector<rt::FusedGroup> groups;
};
Runs run_both(const GraphBuilder& b) {
  Runs r;
  r.groups = rt::find_fusion_groups(b.g);
  r.plain = rt::run_graph_with_fusion(b.g, b.inputs, kCPU, {});
  r.fused = rt::run_graph_with_fusion(b.g, b.inputs, kCPU, r.groups, &r.stats);
  return r;
}
void require_identical(const Runs& r) {
  REQUIRE(r.plain.size() == r.fused.size());
  for (size_t i = 0; i < r.plain.size(); ++i) REQUIRE(identical(r.plain[i], r.fused[i]));
}

// The attributes a node of each hand-lowered op takes (the structured ops take none).
std::vector<Attr> attrs_for(OpId op) {
  if (op == opid::add || op == opid::sub) return {Scalar(0.75)};
  if (op == opid::div) return {std::nullopt};
  if (op == opid::round) return {int64_t(0)};
  if (op == opid::gelu) return {std::string("tanh")};
  if (op == opid::softplus) return {Scalar(1.5), Scalar(2.0)};
  if (op == opid::leaky_relu) return {Scalar(0.1)};
  if (op == opid::elu) return {Scalar(1.2), Scalar(1.1), Scalar(0.9)};
  if (op == opid::hardtanh) return {Scalar(-0.5), Scalar(0.75)};
  if (op == opid::softshrink || op == opid::hardshrink) return {Scalar(0.3)};
  if (op == opid::threshold) return {Scalar(0.1), Scalar(-2.0)};
  return {};
}

}  // namespace

TEST_CASE("fusion: every op in the formula table is tagged pointwise", "[jit][fusion]") {
  std::vector<OpId> ops = ember::kernels::fused::pointwise_ops();
  REQUIRE(ops.size() > 40);
  for (OpId op : ops) {
    INFO(op_name(op));
    REQUIRE(op_schema(op).has_tag(kTagPointwise));
  }
  // The structured float ops come from the generator's list: a sample of them is there.
  for (OpId op : {opid::acos, opid::mish, opid::hardswish, opid::special_i0e})
    REQUIRE(ember::kernels::fused::pointwise_lowering(op) != nullptr);
  REQUIRE(ember::kernels::fused::pointwise_lowering(opid::sin) == nullptr);  // eager's rows are per block
  REQUIRE(ember::kernels::fused::pointwise_lowering(opid::erfinv) == nullptr);  // eager rounds it in its clones
}

TEST_CASE("fusion: each op fused matches its own kernel bit for bit", "[jit][fusion]") {
  manual_seed(1);
  for (DType dt : {kFloat32, kFloat64}) {
    for (OpId op : ember::kernels::fused::pointwise_ops()) {
      INFO(op_name(op) << " " << dtype_name(dt));
      Tensor x = (randn({3, 700}) * 2.0).to(dt);
      Tensor y = (rand({3, 700}) + 0.5).to(dt);
      GraphBuilder b;
      ValueId vx = b.input(x), vy = b.input(y);
      int arity = static_cast<int>(op_schema(op).num_inputs);
      ValueId first = arity == 2 ? b.node(op, {vx, vy}, attrs_for(op)) : b.node(op, {vx}, attrs_for(op));
      ValueId second = b.node(opid::mul, {first, vy});
      b.output(second);
      Runs r = run_both(b);
      CHECK(r.groups.size() == 1);
      CHECK(r.stats.groups_fused == 1);
      int64_t ulps = max_ulps(r.plain[0], r.fused[0]);
      if (ulps) WARN(op_name(op) << " " << dtype_name(dt) << ": " << ulps << " ulp");
      CHECK(identical(r.plain[0], r.fused[0]));
    }
  }
}

TEST_CASE("fusion: an MLP-style chain is one group; only what escapes is materialized", "[jit][fusion]") {
  manual_seed(2);
  for (DType dt : {kFloat32, kFloat64}) {
    for (int64_t rows : {1, 7, 300}) {  // up to 300 * 512 elements: several threads' chunks
      Tensor x = randn({rows, 64}).to(dt), w = randn({64, 512}).to(dt), bias = randn({512}).to(dt);
      Tensor residual = randn({rows, 512}).to(dt);
      GraphBuilder b;
      ValueId vx = b.input(x), vr = b.input(residual);
      ValueId vw = b.constant(w), vb = b.constant(bias);
      ValueId h = b.node(opid::mm, {vx, vw}, {}, DimVector{rows, 512});
      ValueId h1 = b.node(opid::add, {h, vb}, {Scalar(1)});
      ValueId h2 = b.node(opid::gelu, {h1}, {std::string("none")});
      ValueId h3 = b.node(opid::mul, {h2, b.constant(scalar_tensor(0.5, kFloat64), true)});
      ValueId h4 = b.node(opid::add, {h3, vr}, {Scalar(1)});
      ValueId h5 = b.node(opid::tanh, {h4});
      b.output(h5);
      b.output(h2);  // an intermediate the graph also returns
      Runs r = run_both(b);
      REQUIRE(r.groups.size() == 1);
      const rt::FusedGroup& grp = r.groups[0];
      REQUIRE(grp.nodes == std::vector<int32_t>{1, 2, 3, 4, 5});
      REQUIRE(grp.outputs == std::vector<ValueId>{h2, h5});
      REQUIRE(grp.inputs.size() == 4);  // h, bias, the 0.5, residual
      REQUIRE(r.stats.groups_fused == 1);
      require_identical(r);
    }
  }
}

TEST_CASE("fusion: operand forms", "[jit][fusion]") {
  manual_seed(3);
  Tensor x = randn({4, 5, 6});
  auto chain = [&](const Tensor& other, bool other_first) {
    GraphBuilder b;
    ValueId vx = b.input(x), vo = b.input(other);
    ValueId e = b.node(opid::exp, {vx});
    ValueId s = other_first ? b.node(opid::sub, {vo, e}, {Scalar(2)}) : b.node(opid::div, {e, vo}, {std::nullopt});
    b.output(b.node(opid::sigmoid, {s}));
    return run_both(b);
  };
  SECTION("same shape, one element, 0-dim of another dtype, trailing blocks: fused") {
    for (Tensor other : {randn({4, 5, 6}), randn({1}), randn({1, 1, 1}), scalar_tensor(3, kInt64),
                         scalar_tensor(0.25, kFloat64), randn({6}), randn({5, 6}), randn({1, 5, 6})}) {
      for (bool first : {true, false}) {
        INFO(other.sizes().size() << " dims, first " << first);
        Runs r = chain(other, first);
        REQUIRE(r.stats.groups_fused == 1);
        require_identical(r);
      }
    }
  }
  SECTION("other broadcasts, strides, dtypes: declined, same results") {
    for (Tensor other : {randn({4, 1, 6}), randn({5, 1}), randn({6, 5}).t(), randn({4, 5, 6}).to(kFloat64),
                         randn({6}).to(kFloat64), randn({1}).to(kFloat64), randn({12}).slice(0, 0, 12, 2)}) {
      Runs r = chain(other, false);
      REQUIRE(r.groups.size() <= 1);
      REQUIRE(r.stats.groups_fused == 0);
      require_identical(r);
    }
  }
  SECTION("a non-contiguous main input is declined") {
    GraphBuilder b;
    ValueId vx = b.input(randn({6, 4}).t());
    b.output(b.node(opid::relu, {b.node(opid::neg, {vx})}));
    Runs r = run_both(b);
    REQUIRE(r.groups.size() == 1);
    REQUIRE(r.stats.groups_unfused == 1);
    require_identical(r);
  }
  SECTION("empty tensors") {
    GraphBuilder b;
    ValueId vx = b.input(randn({0, 3}));
    b.output(b.node(opid::relu, {b.node(opid::add, {vx, b.input(randn({3}))}, {Scalar(1)})}));
    Runs r = run_both(b);
    REQUIRE(r.stats.groups_fused == 1);
    REQUIRE(r.fused[0].sizes() == DimVector{0, 3});
  }
}

TEST_CASE("fusion: run_fused declines and touches nothing", "[jit][fusion]") {
  manual_seed(4);
  GraphBuilder b;
  ValueId vx = b.input(randn({8, 3}));
  ValueId vb = b.input(randn({3}));
  ValueId added = b.node(opid::add, {vx, vb}, {Scalar(1)});
  ValueId s = b.node(opid::silu, {added});
  b.output(s);
  std::vector<rt::FusedGroup> groups = rt::find_fusion_groups(b.g);
  REQUIRE(groups.size() == 1);
  auto env_with = [&](const Tensor& x, const Tensor& bias) {
    std::vector<Tensor> env(b.g.values.size());
    env[static_cast<size_t>(vx)] = x;
    env[static_cast<size_t>(vb)] = bias;
    return env;
  };
  auto declines = [&](std::vector<Tensor> env, Device device = kCPU) {
    std::vector<Tensor> before = env;
    bool ran = rt::run_fused(groups[0], b.g, env, device);
    for (size_t i = 0; i < env.size(); ++i) REQUIRE(env[i].is_same(before[i]));
    return !ran;
  };
  REQUIRE(declines(env_with(randn({8, 3}).to(kInt32), randn({3}).to(kInt32))));
  REQUIRE(declines(env_with(randn({8, 3}).to(kFloat16), randn({3}).to(kFloat16))));
  REQUIRE(declines(env_with(randn({8, 3}), Tensor())));
  REQUIRE(declines(env_with(randn({8, 3}), randn({8, 1}))));
  REQUIRE(declines(env_with(randn({8, 3}), randn({2, 1, 3}))));  // a middle dim broadcast
  REQUIRE(declines(env_with(randn({8, 3}), randn({3})), Device(DeviceType::CUDA, 0)));
  Tensor needs_grad = randn({3}).requires_grad_();
  REQUIRE(declines(env_with(randn({8, 3}), needs_grad)));
  {
    NoGradGuard no_grad;  // no graph to record: fused
    std::vector<Tensor> env = env_with(randn({8, 3}), needs_grad);
    REQUIRE(rt::run_fused(groups[0], b.g, env, kCPU));
    REQUIRE(env[static_cast<size_t>(s)].defined());
    REQUIRE_FALSE(env[static_cast<size_t>(s)].requires_grad());
  }
  // Other shapes than traced, in the same forms: fused, and right (the second one's
  // output has a dim more than the traced one, as eager's would).
  for (auto [x, bias] : {std::pair{randn({5, 7}), randn({7})}, std::pair{randn({8, 3}), randn({2, 8, 3})}}) {
    std::vector<Tensor> env = env_with(x, bias);
    REQUIRE(rt::run_fused(groups[0], b.g, env, kCPU));
    REQUIRE(identical(env[static_cast<size_t>(s)], silu(x + bias)));
  }
  std::vector<Tensor> env = env_with(randn({5, 7}), randn({7}));
  REQUIRE(rt::run_fused(groups[0], b.g, env, kCPU));
  // The intermediate is never materialized.
  REQUIRE_FALSE(env[static_cast<size_t>(added)].defined());
}

TEST_CASE("fusion: grouping follows data and stops at readers and writes", "[jit][fusion]") {
  manual_seed(5);
  SECTION("a reader outside the group closes it") {
    GraphBuilder b;
    ValueId vx = b.input(randn({4, 8}));
    ValueId a = b.node(opid::exp, {vx});
    ValueId c = b.node(opid::mul, {a, vx});
    ValueId total = b.node(opid::sum, {c}, {DimVector{0, 1}, false, kFloat32}, DimVector{});  // reads c
    ValueId d = b.node(opid::tanh, {c});  // cannot join: sum read c before it
    ValueId e = b.node(opid::neg, {d});
    b.output(b.node(opid::add, {e, total}, {Scalar(1)}));
    Runs r = run_both(b);
    REQUIRE(r.groups.size() == 2);
    REQUIRE(r.groups[0].nodes == std::vector<int32_t>{0, 1});
    REQUIRE(r.groups[1].nodes == std::vector<int32_t>{3, 4, 5});
    require_identical(r);
  }
  SECTION("a write between members closes the group") {
    GraphBuilder b;
    Tensor x = randn({4, 8});
    ValueId vx = b.input(x);
    ValueId a = b.node(opid::exp, {vx});
    ValueId c = b.node(opid::mul, {a, vx});
    b.write_node(opid::relu, vx, {vx});  // x.relu_()
    ValueId d = b.node(opid::add, {c, vx}, {Scalar(1)});  // reads x after the write
    ValueId e = b.node(opid::neg, {d});
    b.output(e);
    std::vector<rt::FusedGroup> groups = rt::find_fusion_groups(b.g);
    REQUIRE(groups.size() == 2);
    REQUIRE(groups[0].nodes == std::vector<int32_t>{0, 1});
    REQUIRE(groups[0].outputs == std::vector<ValueId>{c});
    REQUIRE(groups[1].nodes == std::vector<int32_t>{3, 4});
    std::vector<Tensor> plain = rt::run_graph_with_fusion(b.g, {x.clone()}, kCPU, {});
    std::vector<Tensor> fused = rt::run_graph_with_fusion(b.g, {x.clone()}, kCPU, groups);
    REQUIRE(identical(plain[0], fused[0]));
  }
  SECTION("two chains meeting at a binary node merge") {
    GraphBuilder b;
    ValueId vx = b.input(randn({16})), vy = b.input(randn({16})), vz = b.input(randn({16}));
    ValueId a = b.node(opid::exp, {vx});
    ValueId c = b.node(opid::sigmoid, {vy});
    ValueId m = b.node(opid::dot, {vz, vz}, {}, DimVector{});  // unrelated (0-dim), in between
    ValueId d = b.node(opid::mul, {a, c});
    b.output(b.node(opid::add, {d, m}, {Scalar(1)}));
    Runs r = run_both(b);
    REQUIRE(r.groups.size() == 1);
    REQUIRE(r.groups[0].nodes == std::vector<int32_t>{0, 1, 3, 4});
    require_identical(r);
    // Were the node in between the last reader of x, the group could not run after it.
    GraphBuilder b2;
    ValueId vx2 = b2.input(randn({16})), vy2 = b2.input(randn({16}));
    ValueId a2 = b2.node(opid::exp, {vx2});
    ValueId c2 = b2.node(opid::sigmoid, {vy2});
    ValueId m2 = b2.node(opid::dot, {vx2, vx2}, {}, DimVector{});
    ValueId d2 = b2.node(opid::mul, {a2, c2});
    b2.output(b2.node(opid::add, {d2, m2}, {Scalar(1)}));
    Runs r2 = run_both(b2);
    REQUIRE(r2.groups.size() == 2);  // cut in two before the dot: {exp, sigmoid} and {mul, add}
    REQUIRE(r2.groups[0].nodes == std::vector<int32_t>{0, 1});
    REQUIRE(r2.groups[1].nodes == std::vector<int32_t>{3, 4});
    REQUIRE(r2.stats.groups_fused == 2);
    require_identical(r2);
  }
  SECTION("values of another shape start their own group") {
    GraphBuilder b;
    ValueId vx = b.input(randn({4, 8})), vb = b.input(randn({8}));
    ValueId bb = b.node(opid::tanh, {b.node(opid::exp, {vb})});  // [8]
    ValueId y = b.node(opid::mul, {vx, bb});                      // [4, 8]: reads bb as a row
    b.output(b.node(opid::relu, {y}));
    Runs r = run_both(b);
    REQUIRE(r.groups.size() == 2);
    require_identical(r);
  }
}

TEST_CASE("fusion: a traced module's pointwise tail fuses", "[jit][fusion]") {
  manual_seed(6);
  nn::Linear fc(16, 32);
  auto fn = [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    Tensor h = fc->forward(in[0]);
    return {gelu(h, "tanh") * 0.5 + in[1]};
  };
  jit::NamedTensorList params;
  for (auto& item : fc->named_parameters()) params.push_back({item.key(), item.value()});
  Tensor x = randn({10, 16}), r = randn({10, 32});
  jit::Module traced = jit::trace(fn, {x, r}, params);
  std::vector<rt::FusedGroup> groups = rt::find_fusion_groups(traced.graph());
  REQUIRE(groups.size() == 1);
  REQUIRE(groups[0].nodes.size() == 3);
  NoGradGuard no_grad;
  rt::FusionRunStats stats;
  std::vector<Tensor> fused = rt::run_graph_with_fusion(traced.graph(), {x, r}, kCPU, groups, &stats);
  REQUIRE(stats.groups_fused == 1);
  REQUIRE(identical(fused[0], traced.forward({x, r})[0]));
}

TEST_CASE("fusion: long chains split into bounded groups", "[jit][fusion]") {
  manual_seed(7);
  GraphBuilder b;
  ValueId v = b.input(randn({3, 50}));
  ValueId bias = b.input(randn({50}));
  for (int i = 0; i < 150; ++i)
    v = i % 3 == 0 ? b.node(opid::tanh, {v}) : b.node(opid::add, {v, bias}, {Scalar(0.5)});
  b.output(v);
  Runs r = run_both(b);
  REQUIRE(r.groups.size() == 3);
  for (const rt::FusedGroup& grp : r.groups) REQUIRE(grp.nodes.size() <= 64);
  REQUIRE(r.stats.groups_fused == 3);
  require_identical(r);
}

TEST_CASE("fusion: one graph's groups run from several threads at once", "[jit][fusion]") {
  manual_seed(8);
  GraphBuilder b;
  ValueId vx = b.input(randn({64, 256})), vb = b.input(randn({256}));
  b.output(b.node(opid::mul, {b.node(opid::gelu, {b.node(opid::add, {vx, vb}, {Scalar(1)})}, {std::string("none")}), vx}));
  std::vector<rt::FusedGroup> groups = rt::find_fusion_groups(b.g);
  REQUIRE(groups.size() == 1);
  std::vector<std::vector<Tensor>> inputs;
  std::vector<Tensor> expected;
  for (int t = 0; t < 8; ++t) {
    inputs.push_back({randn({64, 256}), randn({256})});
    expected.push_back(rt::run_graph_with_fusion(b.g, inputs.back(), kCPU, {})[0]);
  }
  std::vector<int> ok(8, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      NoGradGuard no_grad;
      bool all = true;
      for (int i = 0; i < 20; ++i) {
        rt::FusionRunStats stats;
        std::vector<Tensor> out = rt::run_graph_with_fusion(b.g, inputs[static_cast<size_t>(t)], kCPU, groups, &stats);
        all = all && stats.groups_fused == 1 && identical(out[0], expected[static_cast<size_t>(t)]);
      }
      ok[static_cast<size_t>(t)] = all;
    });
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 8; ++t) REQUIRE(ok[static_cast<size_t>(t)] == 1);
}

TEST_CASE("fusion: a group ends before a node outside it that last reads its input", "[jit][fusion]") {
  manual_seed(9);
  // y is read by the group (node 2) and last by node 3, outside it: were node 4 to join,
  // the runtime would release y after node 3, before the group ran at node 4.
  GraphBuilder b;
  ValueId vx = b.input(randn({6, 5})), vy = b.input(randn({5}));
  ValueId a = b.node(opid::exp, {vx});
  ValueId c = b.node(opid::sigmoid, {a});
  ValueId d = b.node(opid::add, {c, vy}, {Scalar(1)});
  ValueId y3 = b.node(opid::mul, {vy, b.constant(scalar_tensor(3.0, kFloat64), true)});  // [5]
  ValueId e = b.node(opid::div, {d, y3}, {std::nullopt});
  b.output(b.node(opid::neg, {e}));
  Runs r = run_both(b);
  REQUIRE(r.groups.size() == 2);
  REQUIRE(r.groups[0].nodes == std::vector<int32_t>{0, 1, 2});
  REQUIRE(r.groups[1].nodes == std::vector<int32_t>{4, 5});
  require_identical(r);
}

TEST_CASE("fusion: a malformed group is declined, not run", "[jit][fusion]") {
  GraphBuilder b;
  ValueId vx = b.input(randn({4}));
  b.output(b.node(opid::neg, {b.node(opid::exp, {vx})}));
  std::vector<rt::FusedGroup> groups = rt::find_fusion_groups(b.g);
  REQUIRE(groups.size() == 1);
  std::vector<Tensor> env(b.g.values.size());
  env[static_cast<size_t>(vx)] = randn({4});
  rt::FusedGroup bad = groups[0];
  bad.program[1].args[0] = 7;  // a register nothing defines
  REQUIRE_FALSE(rt::run_fused(bad, b.g, env, kCPU));
  bad = groups[0];
  bad.output_registers[0] = 0;  // an input register as an output
  REQUIRE_FALSE(rt::run_fused(bad, b.g, env, kCPU));
  bad = groups[0];
  bad.inputs.push_back(99);  // a value outside env
  REQUIRE_FALSE(rt::run_fused(bad, b.g, env, kCPU));
  REQUIRE(rt::run_fused(groups[0], b.g, env, kCPU));
}

TEST_CASE("fusion: pow takes the kernel's paths for a number exponent", "[jit][fusion]") {
  manual_seed(10);
  for (DType dt : {kFloat32, kFloat64}) {
    for (double e : {2.0, 3.0, 1.0, 0.5, -0.5, -1.0, -2.0, 2.5, -1.75, 0.0}) {
      INFO(dtype_name(dt) << " ** " << e);
      GraphBuilder b;
      ValueId vx = b.input((rand({5, 40}) * 3.0 + 0.1).to(dt));
      ValueId p = b.node(opid::pow, {vx, b.constant(scalar_tensor(e, kFloat64), true)});
      b.output(b.node(opid::mul, {p, vx}));
      Runs r = run_both(b);
      CHECK(r.stats.groups_fused == 1);
      CHECK(identical(r.plain[0], r.fused[0]));
    }
  }
  // An exponent that float32 cannot hold exactly: the kernel compares the double, so the
  // loop (which sees it rounded) declines.
  for (double e : {2.0 + 1e-12, 0.1}) {
    GraphBuilder b;
    ValueId vx = b.input(rand({5, 40}) + 0.5);
    ValueId p = b.node(opid::pow, {vx, b.constant(scalar_tensor(e, kFloat64), true)});
    b.output(b.node(opid::mul, {p, vx}));
    Runs r = run_both(b);
    REQUIRE(r.stats.groups_unfused == 1);
    require_identical(r);
  }
  // A number base: 2 ** x.
  GraphBuilder b;
  ValueId vx = b.input(randn({5, 40}));
  ValueId p = b.node(opid::pow, {b.constant(scalar_tensor(2.0, kFloat64), true), vx});
  b.output(b.node(opid::sub, {p, vx}, {Scalar(1)}));
  Runs r = run_both(b);
  REQUIRE(r.stats.groups_fused == 1);
  require_identical(r);
}
