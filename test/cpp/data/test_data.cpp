#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <set>
#include <stdexcept>

#include "ember/data.h"
#include "ember/ember.h"

using namespace ember;
using namespace ember::data;

namespace {

std::vector<int64_t> ints(const Tensor& t) {
  Tensor c = t.to(kInt64).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

// data = [i, 2i] and target = i, for i in [0, n).
TensorDataset numbered(int64_t n) {
  Tensor i = arange(n);
  return TensorDataset(stack({i, mul(i, 2)}, 1), i);
}

// Example i: data = i (0-dim), no target; throws at index `bad`; counts calls.
struct Counting : Dataset {
  int64_t n, bad;
  std::atomic<int64_t> calls{0};
  Counting(int64_t n_, int64_t bad_ = -1) : n(n_), bad(bad_) {}
  Example get(int64_t index) override {
    ++calls;
    if (index == bad) throw std::runtime_error("example " + std::to_string(index) + " is broken");
    return {scalar_tensor(index, kInt64), Tensor()};
  }
  int64_t size() const override { return n; }
};

std::vector<int64_t> all_targets(DataLoader& loader) {
  std::vector<int64_t> out;
  for (Example& b : loader) {
    auto v = ints(b.target);
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), int64_t(0));
  return v;
}

}  // namespace

TEST_CASE("TensorDataset, Subset and random_split") {
  TensorDataset ds = numbered(5);
  CHECK(ds.size() == 5);
  Example e = ds.get(3);
  CHECK(ints(e.data) == std::vector<int64_t>{3, 6});
  CHECK(e.target.item<int64_t>() == 3);
  Example b = ds.get_batch({4, 0});
  CHECK(b.data.sizes() == DimVector{2, 2});
  CHECK(ints(b.target) == std::vector<int64_t>{4, 0});
  CHECK_THROWS_AS(ds.get(5), IndexError);
  CHECK_THROWS_AS(TensorDataset(zeros({3, 2}), zeros({4})), ValueError);

  auto shared = std::make_shared<TensorDataset>(numbered(10));
  Generator g(0);
  auto parts = random_split(shared, {3, 7}, &g);
  REQUIRE(parts.size() == 2);
  CHECK(parts[0]->size() == 3);
  CHECK(parts[1]->size() == 7);
  std::vector<int64_t> seen = parts[0]->indices();
  seen.insert(seen.end(), parts[1]->indices().begin(), parts[1]->indices().end());
  std::sort(seen.begin(), seen.end());
  CHECK(seen == iota(10));
  CHECK(parts[0]->get(1).target.item<int64_t>() == parts[0]->indices()[1]);
  Generator g2(0);
  CHECK(random_split(shared, {3, 7}, &g2)[0]->indices() == parts[0]->indices());
  CHECK_THROWS_AS(random_split(shared, {3, 3}), ValueError);
  CHECK(split_lengths(10, {0.33, 0.33, 0.34}) == std::vector<int64_t>{4, 3, 3});
  CHECK_THROWS_AS(split_lengths(10, {0.5, 0.6}), ValueError);
}

TEST_CASE("samplers") {
  CHECK(SequentialSampler().epoch(4) == iota(4));
  RandomSampler a(7), b(7);
  auto e1 = a.epoch(20), e2 = a.epoch(20);
  CHECK(e1 == b.epoch(20));
  CHECK(e1 != e2);
  auto s = e1;
  std::sort(s.begin(), s.end());
  CHECK(s == iota(20));
  Generator g(7);
  CHECK(RandomSampler(g).epoch(20) == e1);
  manual_seed(4);
  auto u = RandomSampler().epoch(20);
  manual_seed(4);
  CHECK(RandomSampler().epoch(20) == u);
}

TEST_CASE("DataLoader batches in order, with drop_last, and stacks examples") {
  DataLoader loader(numbered(10), DataLoaderOptions(4));
  CHECK(loader.size() == 3);
  std::vector<int64_t> sizes;
  for (Example& batch : loader) {
    sizes.push_back(batch.data.size(0));
    CHECK(batch.data.size(1) == 2);
  }
  CHECK(sizes == std::vector<int64_t>{4, 4, 2});
  CHECK(all_targets(loader) == iota(10));

  DataLoader dropping(numbered(10), DataLoaderOptions(4).drop_last(true));
  CHECK(dropping.size() == 2);
  CHECK(all_targets(dropping) == iota(8));

  auto counting = std::make_shared<Counting>(5);
  DataLoader generic(counting, DataLoaderOptions(2));  // Dataset::get_batch stacks get(i)
  std::vector<int64_t> got;
  for (Example& b : generic) {
    CHECK_FALSE(b.target.defined());
    auto v = ints(b.data);
    got.insert(got.end(), v.begin(), v.end());
  }
  CHECK(got == iota(5));
  CHECK_THROWS_AS(DataLoaderOptions(0), ValueError);
  CHECK_THROWS_AS(DataLoader(numbered(4), DataLoaderOptions(2).shuffle(true),
                             std::make_shared<SequentialSampler>()), ValueError);
}

TEST_CASE("DataLoader shuffles reproducibly by seed and differently each epoch") {
  DataLoader loader(numbered(20), DataLoaderOptions(6).shuffle(true).seed(11));
  auto e1 = all_targets(loader), e2 = all_targets(loader);
  CHECK(e1 != e2);
  auto s = e1;
  std::sort(s.begin(), s.end());
  CHECK(s == iota(20));
  DataLoader again(numbered(20), DataLoaderOptions(6).shuffle(true).seed(11));
  CHECK(all_targets(again) == e1);
  CHECK(all_targets(again) == e2);
}

TEST_CASE("DataLoader worker threads give the same batches, in order") {
  for (bool shuffle : {false, true}) {
    DataLoader main(numbered(37), DataLoaderOptions(5).shuffle(shuffle).seed(3));
    DataLoader threads(numbered(37), DataLoaderOptions(5).shuffle(shuffle).seed(3).num_workers(3));
    std::vector<std::vector<int64_t>> a, b;
    for (Example& batch : main) a.push_back(ints(batch.data));
    for (Example& batch : threads) b.push_back(ints(batch.data));
    CHECK(a == b);
  }
  // the generic path too (Dataset::get_batch from several threads)
  DataLoader generic(std::make_shared<Counting>(50), DataLoaderOptions(3).num_workers(4));
  std::vector<int64_t> got;
  for (Example& b : generic) {
    auto v = ints(b.data);
    got.insert(got.end(), v.begin(), v.end());
  }
  CHECK(got == iota(50));
}

TEST_CASE("DataLoader rethrows a worker's exception and stops early without hanging") {
  auto failing = std::make_shared<Counting>(20, 7);
  for (int64_t workers : {0, 2}) {
    DataLoader loader(failing, DataLoaderOptions(2).num_workers(workers));
    std::vector<int64_t> got;
    try {
      for (Example& b : loader) {
        auto v = ints(b.data);
        got.insert(got.end(), v.begin(), v.end());
      }
      FAIL("no exception");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()) == "example 7 is broken");
    }
    CHECK(got == iota(6));
  }
  // leaving the loop early: the workers stop after at most a window of batches
  auto big = std::make_shared<Counting>(100000);
  DataLoader loader(big, DataLoaderOptions(10).num_workers(2).prefetch_factor(2));
  int64_t seen = 0;
  for (Example& b : loader) {
    (void)b;
    if (++seen == 3) break;
  }
  CHECK(big->calls.load() <= (3 + 2 * 2 + 2) * 10);
}
