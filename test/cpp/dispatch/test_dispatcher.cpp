#include <catch2/catch.hpp>

#include "dispatch/dispatcher.h"
#include "dispatch/kernel_lookup.h"
#include "ember/ember.h"

using namespace ember;

TEST_CASE("op table names round-trip") {
  for (int i = 0; i < kNumOps; ++i) {
    OpId op = static_cast<OpId>(i);
    CHECK(op_from_name(op_name(op)) == op);
  }
  CHECK(op_from_name("no_such_op") == OpId::COUNT);
}

TEST_CASE("every op has a CPU kernel") {
  for (int i = 0; i < kNumOps; ++i) {
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
    KernelFn saved = find_kernel(OpId::neg, DeviceType::CUDA);
    Removed() { register_kernel(OpId::neg, DeviceType::CUDA, nullptr); }
    ~Removed() { register_kernel(OpId::neg, DeviceType::CUDA, saved); }
  } removed;
  Tensor x = zeros({2});
  OpCall call(OpId::neg, {x});
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
