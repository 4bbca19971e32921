#include <catch2/catch.hpp>

#include "dispatch/dispatcher.h"
#include "dispatch/args/elementwise.h"
#include "dispatch/kernel_lookup.h"
#include "dispatch/op_schema.h"
#include "ember/ember.h"

using namespace ember;

TEST_CASE("op table names round-trip") {
  int rows = 0;
  for (int i = 0; i < kOpCapacity; ++i) {
    OpId op = static_cast<OpId>(i);
    if (!is_op(op)) continue;
    ++rows;
    CHECK(op_from_name(op_name(op)) == op);
  }
  CHECK(rows > 200);
  CHECK(op_from_name("add") == opid::add);
  CHECK_FALSE(is_op(kNoOp));
  CHECK(std::string(op_name(kNoOp)) == "<invalid op>");
  CHECK(op_from_name("no_such_op") == kNoOp);
}

TEST_CASE("every op has a CPU kernel") {
  for (int i = 0; i < kOpCapacity; ++i) {
    if (!is_op(static_cast<OpId>(i))) continue;
    INFO(op_name(static_cast<OpId>(i)));
    CHECK(has_kernel(static_cast<OpId>(i), DeviceType::CPU));
  }
}

namespace {
int g_seen = 0;
void counting_layer(OpCall& call) {
  ++g_seen;
  dispatch_below_tracer(call);
}
}  // namespace

TEST_CASE("the tracer layer sees each op once and costs nothing when idle") {
  set_tracer_layer(&counting_layer);
  g_seen = 0;
  Tensor x = zeros({3});
  CHECK(g_seen == 0);
  dispatch_state().tracing = true;
  Tensor y = x.view({3, 1});
  dispatch_state().tracing = false;
  CHECK(g_seen == 1);
  set_tracer_layer(nullptr);
}

TEST_CASE("a missing kernel is a clear NotImplementedError") {
  // Every op has a CUDA kernel (in CUDA builds): take neg's away for this test.
  struct Removed {
    KernelFn saved = find_kernel(opid::neg, DeviceType::CUDA);
    Removed() { register_kernel(opid::neg, DeviceType::CUDA, nullptr); }
    ~Removed() { register_kernel(opid::neg, DeviceType::CUDA, saved); }
  } removed;
  Tensor x = zeros({2});
  OpCall call(opid::neg, {x});
  call.device = Device(DeviceType::CUDA, 0);
  try {
    dispatch(call);
    FAIL("expected an error");
  } catch (const NotImplementedError& e) {
    CHECK(std::string(e.what()).find("neg") != std::string::npos);
    CHECK(std::string(e.what()).find("cuda") != std::string::npos);
  }
}

TEST_CASE("in-place ops bump the version of what they write") {
  Tensor x = zeros({4});
  uint64_t v = x.version();
  x.fill_(2);
  CHECK(x.version() == v + 1);
}

TEST_CASE("the schema table matches the op table") {
  for (int i = 0; i < kOpCapacity; ++i) {
    OpId op = static_cast<OpId>(i);
    if (!is_op(op)) continue;
    CHECK(std::string(op_schema(op).name) == op_name(op));
  }
  const OpSchema& add = op_schema(opid::add);
  CHECK(add.num_inputs == 2);
  CHECK(add.num_attrs == 1);
  CHECK(add.attrs[0].kind == ArgKind::Scalar);
  CHECK(add.has_tag(kTagPointwise));
  CHECK(add.num_outputs == 1);
}

TEST_CASE("schema checks catch a call that breaks its row") {
  bool was = schema_checks_enabled();
  set_schema_checks(true);
  Tensor a = ones({2}), b = ones({2});
  {  // add(Tensor self, Tensor other, Scalar alpha): an int list where alpha goes
    OpCall call(opid::add, {a, b}, {Attr(DimVector{1})});
    CHECK_THROWS_WITH(dispatch(call), Catch::Contains("schema check: add: attr 0 (alpha)"));
  }
  {  // a missing input
    OpCall call(opid::add, {a}, {Attr(Scalar(1))});
    CHECK_THROWS_WITH(dispatch(call), Catch::Contains("1 tensor inputs, the row 2"));
  }
  {  // an undefined non-optional input
    OpCall call(opid::add, {a, Tensor()}, {Attr(Scalar(1))});
    CHECK_THROWS_WITH(dispatch(call), Catch::Contains("input 1 (other) is undefined"));
  }
  {  // the right layout passes, and the arguments are untouched
    OpCall call(opid::add, {a, b}, {Attr(Scalar(2))});
    dispatch(call);
    CHECK(call.outputs[0].sum().item<float>() == 6.0f);
    CHECK(a.sum().item<float>() == 2.0f);
  }
  set_schema_checks(was);
}

TEST_CASE("generated Args structs read and write a call's attrs by name") {
  EluArgs args{Scalar(0.5), Scalar(2.0), Scalar(1.0)};
  OpCall call(opid::elu, {ones({2})}, args.attrs());
  EluArgs back = EluArgs::from(call);
  CHECK(back.alpha.to_double() == 0.5);
  CHECK(back.scale.to_double() == 2.0);
  CHECK(back.input_scale.to_double() == 1.0);
  EluArgs defaults;
  CHECK(defaults.alpha.to_double() == 1.0);
  static_assert(EluArgs::op == opid::elu);
}
