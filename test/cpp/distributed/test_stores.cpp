// ember::distributed's stores (torch.distributed's semantics) and, in builds with
// Gloo, two ranks in one process (two threads over a HashStore) running collectives.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdio>
#include <future>
#include <thread>

#include "ember/distributed.h"
#include "ember/ember.h"

using namespace ember;
using namespace ember::distributed;
using namespace std::chrono_literals;

namespace {

std::string temp_path(const char* tag) {
  return "/tmp/ember_test_" + std::string(tag) + "_" + std::to_string(::getpid()) + "_" +
         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
}

// The semantics every store shares.
void check_store_semantics(Store& store) {
  store.set("a", to_bytes("1"));
  CHECK(to_string(store.get("a")) == "1");
  store.set("a", to_bytes("two"));
  CHECK(to_string(store.get("a")) == "two");
  CHECK(store.add("n", 2) == 2);
  CHECK(store.add("n", -5) == -3);
  CHECK(to_string(store.get("n")) == "-3");
  CHECK_THROWS_AS(store.add("a", 1), ValueError);
  // compare_set: absent and expected empty sets; a wrong expectation returns the value.
  CHECK(to_string(store.compare_set("cs", {}, to_bytes("v"))) == "v");
  CHECK(to_string(store.compare_set("cs", to_bytes("x"), to_bytes("y"))) == "v");
  CHECK(to_string(store.compare_set("cs", to_bytes("v"), to_bytes("w"))) == "w");
  CHECK(to_string(store.compare_set("absent", to_bytes("e"), to_bytes("d"))) == "e");
  CHECK_FALSE(store.check({"absent"}));
  CHECK(store.check({"a", "n", "cs"}));
  CHECK_FALSE(store.check({"a", "absent"}));
  int64_t keys = store.num_keys();
  CHECK(store.delete_key("cs"));
  CHECK_FALSE(store.delete_key("cs"));
  CHECK(store.num_keys() == keys - 1);
  store.append("log", to_bytes("ab"));
  store.append("log", to_bytes("cd"));
  CHECK(to_string(store.get("log")) == "abcd");
  store.multi_set({"m1", "m2"}, {to_bytes("x"), to_bytes("y")});
  auto values = store.multi_get({"m1", "m2"});
  CHECK(to_string(values[0]) == "x");
  CHECK(to_string(values[1]) == "y");
  // Binary values survive.
  Bytes binary{0, 255, 10, 0, 13};
  store.set("bin", binary);
  CHECK(store.get("bin") == binary);
  // A key that never comes: the wait and the get time out.
  auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(store.wait({"never"}, 100ms), DistStoreError);
  store.set_timeout(100ms);
  CHECK_THROWS_AS(store.get("never"), DistStoreError);
  CHECK(std::chrono::steady_clock::now() - start < 5s);
  // A key set later by another thread ends the wait.
  store.set_timeout(10s);
  std::thread writer([&] {
    std::this_thread::sleep_for(50ms);
    store.set("late", to_bytes("here"));
  });
  store.wait({"late"});
  CHECK(to_string(store.get("late")) == "here");
  writer.join();
}

}  // namespace

TEST_CASE("HashStore keeps torch's store semantics", "[distributed]") {
  HashStore store;
  check_store_semantics(store);
}

TEST_CASE("FileStore keeps torch's store semantics and shares a file", "[distributed]") {
  std::string path = temp_path("filestore");
  {
    FileStore store(path, 2);
    check_store_semantics(store);
    FileStore other(path, 2);  // a second process would open it the same way
    other.set("from_other", to_bytes("hi"));
    CHECK(to_string(store.get("from_other")) == "hi");
    CHECK(store.add("counter", 1) == 1);
    CHECK(other.add("counter", 1) == 2);
  }
  // The last of world_size stores removed the file.
  CHECK(std::fopen(path.c_str(), "r") == nullptr);
}

TEST_CASE("TCPStore keeps torch's store semantics over sockets", "[distributed]") {
  TCPStoreOptions master_options;
  master_options.port = 0;
  master_options.is_master = true;
  master_options.timeout = 10s;
  TCPStore master("127.0.0.1", master_options);
  REQUIRE(master.port() != 0);
  check_store_semantics(master);

  TCPStoreOptions client_options;
  client_options.port = master.port();
  client_options.timeout = 10s;
  TCPStore client("127.0.0.1", client_options);
  client.set("from_client", to_bytes("x"));
  CHECK(to_string(master.get("from_client")) == "x");
  // A wait that times out leaves the connection usable.
  CHECK_THROWS_AS(client.wait({"never"}, 50ms), DistStoreError);
  CHECK(client.add("counter", 5) == 5);
  // The port is taken: a second master cannot listen there.
  TCPStoreOptions taken = master_options;
  taken.port = master.port();
  CHECK_THROWS_AS(TCPStore("127.0.0.1", taken), DistNetworkError);
}

TEST_CASE("TCPStore clients fail within their timeout when no server listens", "[distributed]") {
  uint16_t free_port;
  {
    TCPStoreOptions options;
    options.port = 0;
    options.is_master = true;
    TCPStore probe("127.0.0.1", options);
    free_port = probe.port();
  }
  TCPStoreOptions options;
  options.port = free_port;
  options.timeout = 300ms;
  auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(TCPStore("127.0.0.1", options), DistNetworkError);
  CHECK(std::chrono::steady_clock::now() - start < 5s);
}

TEST_CASE("TCPStore's master waits for world_size workers", "[distributed]") {
  TCPStoreOptions options;
  options.port = 0;
  options.is_master = true;
  options.world_size = 2;
  options.timeout = 200ms;
  CHECK_THROWS_AS(TCPStore("127.0.0.1", options), DistStoreError);
}

TEST_CASE("PrefixStore keeps its keys under prefix/", "[distributed]") {
  auto base = std::make_shared<HashStore>();
  PrefixStore store("job", base);
  check_store_semantics(store);
  store.set("k", to_bytes("v"));
  CHECK(to_string(base->get("job/k")) == "v");
  CHECK_FALSE(base->check({"k"}));
}

TEST_CASE("Gloo groups of two threads run collectives", "[distributed]") {
  if (!is_gloo_available()) {
    CHECK_THROWS_AS(make_gloo_process_group(std::make_shared<HashStore>(), 0, 1), Error);
    return;
  }
  auto store = std::make_shared<HashStore>();
  GlooOptions options;
  options.timeout = 20s;
  auto run_rank = [&](int rank) {
    auto group = make_gloo_process_group(std::make_shared<PrefixStore>("test", store), rank, 2, options);
    CHECK(group->rank() == rank);
    CHECK(group->size() == 2);
    CHECK(group->backend_name() == "gloo");
    // all_reduce SUM of [rank+1, 2(rank+1), 3(rank+1)]: [3, 6, 9].
    Tensor x = mul(arange(1, 4, 1, TensorOptions(kFloat32)), Scalar(rank + 1));
    group->all_reduce(x, ReduceOp::SUM)->wait();
    // broadcast from rank 1 into a transposed (non-contiguous) tensor.
    Tensor b = arange(0, 6, 1, TensorOptions(kInt64)).reshape({2, 3});
    if (rank == 1) b = mul(b, Scalar(10));
    Tensor bt = b.t();
    group->broadcast(bt, 1)->wait();
    // all_reduce MAX of int64.
    Tensor m = full({2}, Scalar(int64_t(rank * 7)), TensorOptions(kInt64));
    group->all_reduce(m, ReduceOp::MAX)->wait();
    group->barrier()->wait();
    return std::vector<Tensor>{x, bt.contiguous(), m};
  };
  auto other = std::async(std::launch::async, run_rank, 1);
  auto mine = run_rank(0);
  auto theirs = other.get();
  for (auto* result : {&mine, &theirs}) {
    auto x = (*result)[0].contiguous();
    CHECK(x.data_ptr<float>()[0] == 3.0f);
    CHECK(x.data_ptr<float>()[1] == 6.0f);
    CHECK(x.data_ptr<float>()[2] == 9.0f);
    auto bt = (*result)[1];
    // b on rank 1 was 10 * [[0, 1, 2], [3, 4, 5]]; bt is its transpose.
    CHECK(bt.size(0) == 3);
    CHECK(bt.data_ptr<int64_t>()[1] == 30);  // bt[0][1] = b[1][0]
    CHECK((*result)[2].data_ptr<int64_t>()[0] == 7);
  }
}

TEST_CASE("Gloo collectives check their arguments before they communicate", "[distributed]") {
  if (!is_gloo_available()) return;
  GlooOptions options;
  options.timeout = 5s;
  auto group = make_gloo_process_group(std::make_shared<HashStore>(), 0, 1, options);
  Tensor x = ones({4}, TensorOptions(kInt64));
  CHECK_THROWS_AS(group->all_reduce(x, ReduceOp::AVG), Error);
  CHECK_THROWS_AS(group->broadcast(x, 3), Error);
  CHECK_THROWS_AS(group->all_gather({zeros({3}, TensorOptions(kInt64))}, x), Error);
  CHECK_THROWS_AS(group->all_gather({zeros({4}, TensorOptions(kFloat32))}, x), ValueError);
  CHECK_THROWS_AS(group->all_gather_into_tensor(zeros({5}, TensorOptions(kInt64)), x), Error);
  CHECK(x.data_ptr<int64_t>()[0] == 1);
  // A world of one: the collectives are identities.
  group->all_reduce(x, ReduceOp::SUM)->wait();
  CHECK(x.data_ptr<int64_t>()[0] == 1);
}

TEST_CASE("Gloo ranks that call different collectives both raise", "[distributed]") {
  if (!is_gloo_available()) return;
  auto store = std::make_shared<HashStore>();
  GlooOptions options;
  options.timeout = 20s;
  auto run_rank = [&](int rank) {
    auto group = make_gloo_process_group(std::make_shared<PrefixStore>("disagree", store), rank, 2, options);
    Tensor x = ones({rank == 0 ? 4 : 8}, TensorOptions(kFloat32));
    bool raised = false;
    try {
      group->all_reduce(x, ReduceOp::SUM)->wait();
    } catch (const DistBackendError& e) {
      raised = std::string(e.what()).find("rank 1: all_reduce of 8 float32 elements") != std::string::npos;
    }
    // The group still works: the mismatch was caught before any data moved.
    Tensor y = ones({2}, TensorOptions(kFloat32));
    group->all_reduce(y, ReduceOp::SUM)->wait();
    return raised && y.data_ptr<float>()[0] == 2.0f && x.data_ptr<float>()[0] == 1.0f;
  };
  auto other = std::async(std::launch::async, run_rank, 1);
  CHECK(run_rank(0));
  CHECK(other.get());
}

TEST_CASE("Gloo all_reduce carries its data with the call record up to the limit", "[distributed]") {
  // 300000 floats are more than one message carries (call_exchange.h): that rank sends
  // its record alone, the other its record and data; both raise, nothing aborts.
  if (!is_gloo_available()) return;
  auto store = std::make_shared<HashStore>();
  GlooOptions options;
  options.timeout = 20s;
  auto run_rank = [&](int rank) {
    auto group = make_gloo_process_group(std::make_shared<PrefixStore>("limit", store), rank, 2, options);
    bool ok = true;
    Tensor mixed = ones({rank == 0 ? 4 : 300000}, TensorOptions(kFloat32));
    try {
      group->all_reduce(mixed, ReduceOp::SUM)->wait();
      ok = false;
    } catch (const DistBackendError& e) {
      ok = ok && std::string(e.what()).find("rank 1: all_reduce of 300000 float32 elements") !=
                     std::string::npos;
    }
    ok = ok && mixed.data_ptr<float>()[0] == 1.0f;
    // On both sides of the limit the sums are right, and the same bits on both ranks.
    for (int64_t n : {int64_t(5), int64_t(300000)}) {
      Tensor x = full({n}, rank == 0 ? 0.1 : 0.2, TensorOptions(kFloat32));
      group->all_reduce(x, ReduceOp::SUM)->wait();
      ok = ok && x.data_ptr<float>()[0] == 0.1f + 0.2f && x.data_ptr<float>()[n - 1] == 0.1f + 0.2f;
    }
    return ok;
  };
  auto other = std::async(std::launch::async, run_rank, 1);
  CHECK(run_rank(0));
  CHECK(other.get());
}
