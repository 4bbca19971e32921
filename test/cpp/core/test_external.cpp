// Tensors over memory ember does not own (include/ember/ops/external.h).
#include <catch2/catch.hpp>

#include "ember/ember.h"
#include "ember/ops/external.h"

using namespace ember;

namespace {
int g_deleted = 0;
void count_delete(void* ctx, void* data) {
  ++g_deleted;
  CHECK(ctx == data);
}
}  // namespace

TEST_CASE("from_blob views external memory and calls the deleter once, at the end") {
  float buf[6] = {0, 1, 2, 3, 4, 5};
  g_deleted = 0;
  {
    Tensor t = from_blob(buf, {2, 3}, {3, 1}, kFloat32, kCPU, &count_delete, buf);
    CHECK(t.data_ptr() == buf);
    CHECK(t.is_contiguous());
    Tensor col = t.select(1, 2);  // a view keeps the memory alive
    t = Tensor();
    CHECK(g_deleted == 0);
    CHECK(col.select(0, 0).item<float>() == 2.0f);
    col.fill_(9);
    CHECK(buf[2] == 9.0f);
    CHECK(buf[5] == 9.0f);
  }
  CHECK(g_deleted == 1);
}

TEST_CASE("from_blob with strides, zero strides and no elements") {
  int64_t buf[4] = {10, 11, 12, 13};
  Tensor t = from_blob(buf, {2, 2}, {1, 2}, kInt64, kCPU, nullptr, nullptr);  // transposed
  CHECK(!t.is_contiguous());
  CHECK(t.select(0, 1).select(0, 0).item<int64_t>() == 11);
  Tensor b = from_blob(buf, {3, 4}, {0, 1}, kInt64, kCPU, nullptr, nullptr);  // broadcast rows
  CHECK(b.select(0, 2).select(0, 3).item<int64_t>() == 13);
  Tensor e = from_blob(nullptr, {0, 5}, {5, 1}, kFloat32, kCPU, nullptr, nullptr);
  CHECK(e.numel() == 0);
  Tensor s = from_blob(buf, {}, {}, kInt64, kCPU, nullptr, nullptr);
  CHECK(s.item<int64_t>() == 10);
}

TEST_CASE("from_blob rejects bad layouts and still calls the deleter") {
  float buf[4] = {};
  g_deleted = 0;
  CHECK_THROWS_AS(from_blob(buf, {2}, {-1}, kFloat32, kCPU, &count_delete, buf), ValueError);
  CHECK_THROWS_AS(from_blob(buf, {-2}, {1}, kFloat32, kCPU, &count_delete, buf), ValueError);
  CHECK_THROWS_AS(from_blob(buf, {2, 2}, {1}, kFloat32, kCPU, &count_delete, buf), ValueError);
  CHECK_THROWS_AS(from_blob(nullptr, {2}, {1}, kFloat32, kCPU, &count_delete, nullptr), ValueError);
  CHECK_THROWS_AS(from_blob(buf, {2}, {1}, kFloat32, Device("cuda"), &count_delete, buf), Error);
  CHECK(g_deleted == 5);
}

TEST_CASE("from_blob with a C++ callable and options") {
  std::vector<double> values = {1.5, 2.5, 3.5};
  bool freed = false;
  {
    Tensor t = from_blob(values.data(), {3}, [&](void* p) { freed = p == values.data(); },
                         TensorOptions(kFloat64).requires_grad(true));
    CHECK(t.dtype() == kFloat64);
    CHECK(t.requires_grad());
    CHECK(t.select(0, 2).item<double>() == 3.5);
  }
  CHECK(freed);
  int32_t ints[2] = {1, 2};
  bool freed_ints = false;
  CHECK_THROWS(from_blob(ints, {2}, [&](void*) { freed_ints = true; },
                         TensorOptions(kInt32).requires_grad(true)));
  CHECK(freed_ints);
}
