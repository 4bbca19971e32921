// The shape_index group from C++: the same API without Python.
#include <catch2/catch.hpp>

#include "ember/ember.h"

using namespace ember;
using namespace ember::indexing;

namespace {
std::vector<int64_t> values(const Tensor& t) {
  Tensor c = t.to(kInt64).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}
}  // namespace

TEST_CASE("x.index({...}) mirrors Python indexing") {
  Tensor x = arange(24).reshape({2, 3, 4});
  Tensor a = x.index({1, Slice(None, None, 2)});  // x[1, ::2]
  CHECK(a.sizes() == DimVector{2, 4});
  CHECK(values(a) == std::vector<int64_t>{12, 13, 14, 15, 20, 21, 22, 23});
  CHECK(a.impl()->storage() == x.impl()->storage());  // basic indexing is a view

  Tensor b = x.index({Slice(1, None), None, Ellipsis, tensor<int64_t>({3, 0})});  // x[1:, None, ..., [3, 0]]
  CHECK(b.sizes() == DimVector{1, 1, 3, 2});
  CHECK(values(b) == std::vector<int64_t>{15, 12, 19, 16, 23, 20});

  Tensor mask = from_vector<int64_t>({1, 0, 1}, {3}).to(kBool);
  Tensor c = x.index({"...", mask, 0});  // x[..., mask, 0]: PyTorch's int stays basic
  CHECK(c.sizes() == DimVector{2, 2});
  CHECK(values(c) == std::vector<int64_t>{0, 8, 12, 20});

  CHECK_THROWS_AS(x.index({5}), IndexError);
  CHECK_THROWS_AS(x.index({0, 0, 0, 0}), IndexError);
  CHECK_THROWS_AS(x.index({Slice(None, None, -1)}), ValueError);
}

TEST_CASE("index_put_ writes through views and advanced indices") {
  Tensor x = zeros({3, 4}, kInt64);
  x.index_put_({Slice(), 1}, 5);                                  // x[:, 1] = 5
  x.index_put_({tensor<int64_t>({0, 2}), tensor<int64_t>({3, 0})}, tensor<int64_t>({7, 8}));
  CHECK(values(x) == std::vector<int64_t>{0, 5, 0, 7, 0, 5, 0, 0, 8, 5, 0, 0});
  uint64_t before = x.version();
  x.index_put_(TensorList{tensor<int64_t>({1, 1})}, tensor<int64_t>({1, 2}).view({2, 1}), true);
  CHECK(x.version() > before);
  CHECK(values(x.select(0, 1)) == std::vector<int64_t>{3, 8, 3, 3});
}

TEST_CASE("cat, stack, split and chunk") {
  Tensor a = arange(6).reshape({2, 3}), b = arange(6, 9).reshape({1, 3});
  Tensor c = cat({a, b});
  CHECK(c.sizes() == DimVector{3, 3});
  CHECK(values(c) == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(cat({a.to(kInt32), b.to(kFloat16)}).dtype() == kFloat16);
  CHECK(stack({a, a}, 1).sizes() == DimVector{2, 2, 3});
  TensorList parts = split(arange(7), 3);
  REQUIRE(parts.size() == 3);
  CHECK(values(parts[2]) == std::vector<int64_t>{6});
  CHECK(chunk(arange(6), 4).size() == 3);
  CHECK_THROWS_AS(cat({a, arange(4).reshape({1, 4})}), Error);
}

TEST_CASE("gather, scatter_add, index_select, masked_fill, nonzero") {
  Tensor x = arange(6).reshape({2, 3});
  Tensor g = gather(x, 1, from_vector<int64_t>({2, 0, 1, 1}, {2, 2}));
  CHECK(values(g) == std::vector<int64_t>{2, 0, 4, 4});
  Tensor s = zeros({3}, kInt64);
  s.scatter_add_(0, tensor<int64_t>({0, 2, 0}), tensor<int64_t>({1, 2, 3}));
  CHECK(values(s) == std::vector<int64_t>{4, 0, 2});
  CHECK(values(index_select(x, 0, tensor<int64_t>({1, 1}))) ==
        std::vector<int64_t>{3, 4, 5, 3, 4, 5});
  Tensor m = from_vector<int64_t>({1, 0, 1}, {3}).to(kBool);
  CHECK(values(x.masked_fill(m, -1)) == std::vector<int64_t>{-1, 1, -1, -1, 4, -1});
  CHECK(values(nonzero(x)) == std::vector<int64_t>{0, 1, 0, 2, 1, 0, 1, 1, 1, 2});
  CHECK_THROWS_AS(gather(x, 1, from_vector<int64_t>({3}, {1, 1})), Error);
}

TEST_CASE("scatter_reduce and index_reduce: each reduction, with and without self") {
  Tensor self = tensor<int64_t>({5, 5, 5});
  Tensor index = tensor<int64_t>({0, 0, 2});
  Tensor src = tensor<int64_t>({2, 7, 3});
  CHECK(values(scatter_reduce(self, 0, index, src, "sum")) == std::vector<int64_t>{14, 5, 8});
  CHECK(values(scatter_reduce(self, 0, index, src, "sum", false)) == std::vector<int64_t>{9, 5, 3});
  CHECK(values(scatter_reduce(self, 0, index, src, "prod")) == std::vector<int64_t>{70, 5, 15});
  CHECK(values(scatter_reduce(self, 0, index, src, "amax", false)) == std::vector<int64_t>{7, 5, 3});
  CHECK(values(scatter_reduce(self, 0, index, src, "amin")) == std::vector<int64_t>{2, 5, 3});
  // mean floor-divides integers: (5 + 2 + 7) / 3 and (5 + 3) / 2.
  CHECK(values(scatter_reduce(self, 0, index, src, "mean")) == std::vector<int64_t>{4, 5, 4});
  Tensor rows = zeros({2, 2}, kInt64);
  index_reduce_(rows, 0, tensor<int64_t>({1, 1}), tensor<int64_t>({3, 4, 1, 9}).reshape({2, 2}),
                "amax", false);
  CHECK(values(rows) == std::vector<int64_t>{0, 0, 3, 9});
  // Checked before writing: a bad reduction or index leaves self as it was.
  CHECK_THROWS_WITH(scatter_reduce_(self, 0, index, src, "add"),
                    Catch::Contains("reduce argument must be either sum, prod, mean, amax or amin"));
  CHECK_THROWS_AS(scatter_reduce_(self, 0, tensor<int64_t>({0, 9, 1}), src, "sum"), Error);
  CHECK(values(self) == std::vector<int64_t>{5, 5, 5});
}

TEST_CASE("sort, topk and unique") {
  Tensor x = tensor<float>({3, 1, 2, 1});
  auto [v, i] = x.sort();
  CHECK(values(v) == std::vector<int64_t>{1, 1, 2, 3});
  CHECK(values(i) == std::vector<int64_t>{1, 3, 2, 0});  // ties keep their order
  auto [tv, ti] = topk(x, 2);
  CHECK(values(tv) == std::vector<int64_t>{3, 2});
  CHECK(values(ti) == std::vector<int64_t>{0, 2});
  auto [u, inv, counts] = unique(x, true, true, true);
  CHECK(values(u) == std::vector<int64_t>{1, 2, 3});
  CHECK(values(inv) == std::vector<int64_t>{2, 0, 1, 0});
  CHECK(values(counts) == std::vector<int64_t>{2, 1, 1});
  CHECK_THROWS_AS(topk(x, 5), Error);
}

TEST_CASE("repeat, flip, roll, tril and diag") {
  Tensor x = arange(4).reshape({2, 2});
  CHECK(values(x.repeat({1, 2})) == std::vector<int64_t>{0, 1, 0, 1, 2, 3, 2, 3});
  CHECK(values(x.flip({0, 1})) == std::vector<int64_t>{3, 2, 1, 0});
  CHECK(values(roll(arange(4), {1})) == std::vector<int64_t>{3, 0, 1, 2});
  CHECK(values(x.tril(-1)) == std::vector<int64_t>{0, 0, 2, 0});
  CHECK(values(diag(x)) == std::vector<int64_t>{0, 3});
  CHECK(diag(arange(2), 1).sizes() == DimVector{3, 3});
}

// Sizes above the parallel grain, so the kernels split work across threads; each
// result is checked against a plain loop.
TEST_CASE("large inputs match plain loops (parallel paths)") {
  const int64_t R = 400, C = 300;
  Tensor x = randint(-1000, 1000, {R, C});
  Tensor idx = randint(0, C, {R, C});
  const int64_t* xp = x.data_ptr<int64_t>();
  const int64_t* ip = idx.data_ptr<int64_t>();

  Tensor g = gather(x, 1, idx);
  Tensor s = zeros({R, C}, kInt64);
  s.scatter_add_(1, idx, x);
  std::vector<int64_t> sum(R * C, 0);
  bool gather_ok = true;
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) {
      gather_ok = gather_ok && g.data_ptr<int64_t>()[r * C + c] == xp[r * C + ip[r * C + c]];
      sum[r * C + ip[r * C + c]] += xp[r * C + c];
    }
  CHECK(gather_ok);
  CHECK(values(s) == sum);

  // index_add_ along dim 0 with repeated rows
  Tensor rows = randint(0, R, {R});
  Tensor acc = zeros({R, C}, kInt64);
  acc.index_add_(0, rows, x, 2);
  std::vector<int64_t> expect(R * C, 0);
  for (int64_t j = 0; j < R; ++j)
    for (int64_t c = 0; c < C; ++c)
      expect[rows.data_ptr<int64_t>()[j] * C + c] += 2 * xp[j * C + c];
  CHECK(values(acc) == expect);

  // advanced indexing of a transposed (non-contiguous) source
  Tensor cols = randint(0, C, {500});
  Tensor picked = x.t().index({cols});
  REQUIRE(picked.sizes() == DimVector{500, R});
  bool index_ok = true;
  for (int64_t k = 0; k < 500; ++k)
    for (int64_t r = 0; r < R; ++r)
      index_ok = index_ok && picked.data_ptr<int64_t>()[k * R + r] ==
                                 xp[r * C + cols.data_ptr<int64_t>()[k]];
  CHECK(index_ok);

  // sort along dim 0 (strided slices), against std::stable_sort per column
  auto [sv, si] = sort(x, 0);
  bool sort_ok = true;
  for (int64_t c = 0; c < C; ++c) {
    std::vector<int64_t> order(R);
    for (int64_t r = 0; r < R; ++r) order[r] = r;
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return xp[a * C + c] < xp[b * C + c]; });
    for (int64_t r = 0; r < R; ++r)
      sort_ok = sort_ok && si.data_ptr<int64_t>()[r * C + c] == order[r] &&
                sv.data_ptr<int64_t>()[r * C + c] == xp[order[r] * C + c];
  }
  CHECK(sort_ok);
}

TEST_CASE("tensor_api: views and stacking") {
  Tensor x = arange(24).reshape({2, 3, 4});
  Tensor m = movedim(x, IntList{0, 1}, IntList{2, 0});
  CHECK(m.sizes() == DimVector{3, 4, 2});
  CHECK(m.impl()->storage() == x.impl()->storage());
  CHECK(squeeze_dims(zeros({1, 3, 1}), {0, -1}).sizes() == DimVector{3});
  CHECK(broadcast_shapes(std::vector<IntList>{{3, 1}, {4}, {}}) == DimVector{3, 4});
  CHECK(values(sum_to_size(ones({2, 3}, kInt64), {1, 3})) == std::vector<int64_t>{2, 2, 2});
  CHECK(values(rot90(arange(4).reshape({2, 2}))) == std::vector<int64_t>{1, 3, 0, 2});
  CHECK(column_stack({arange(2), arange(2)}).sizes() == DimVector{2, 2});
  CHECK(dstack({arange(2), arange(2)}).sizes() == DimVector{1, 2, 2});
  CHECK(hsplit(arange(6).reshape({2, 3}), 3).size() == 3);
  CHECK_THROWS_AS(vsplit(arange(3), 1), Error);
  CHECK(values(block_diag({ones({1, 1}, kInt64), full({1, 2}, 2, kInt64)})) ==
        std::vector<int64_t>{1, 0, 0, 0, 2, 2});
  CHECK(values(vander(arange(3), 3)) == std::vector<int64_t>{0, 0, 1, 1, 1, 1, 4, 2, 1});
  CHECK(values(diag_embed(arange(1, 3).reshape({1, 2}))) == std::vector<int64_t>{1, 0, 0, 2});
}

TEST_CASE("tensor_api: index grids and scatters") {
  CHECK(values(tril_indices(3, 3)) == std::vector<int64_t>{0, 1, 1, 2, 2, 2, 0, 0, 1, 0, 1, 2});
  CHECK(values(triu_indices(2, 3, 1)) == std::vector<int64_t>{0, 0, 1, 1, 2, 2});
  TensorList g = meshgrid({arange(2), arange(3)}, "xy");
  CHECK(g[0].sizes() == DimVector{3, 2});
  CHECK(values(combinations(arange(3))) == std::vector<int64_t>{0, 1, 0, 2, 1, 2});
  CHECK(values(repeat_interleave(from_vector<int64_t>({2, 0, 1}, {3}))) ==
        std::vector<int64_t>{0, 0, 2});
  CHECK(values(repeat_interleave(arange(2), 2)) == std::vector<int64_t>{0, 0, 1, 1});
  CHECK(values(select_scatter(zeros({2, 2}, kInt64), ones({2}, kInt64), 1, 0)) ==
        std::vector<int64_t>{1, 0, 1, 0});
  auto [v, inv, counts] = unique_consecutive(from_vector<int64_t>({1, 1, 2, 1}, {4}), true, true);
  CHECK(values(v) == std::vector<int64_t>{1, 2, 1});
  CHECK(values(inv) == std::vector<int64_t>{0, 0, 1, 2});
  CHECK(values(counts) == std::vector<int64_t>{2, 1, 1});
  Tensor x = zeros({2, 2}, kInt64);
  put_(x, from_vector<int64_t>({3, -4}, {2}), from_vector<int64_t>({5, 6}, {2}));
  CHECK(values(x) == std::vector<int64_t>{6, 0, 0, 5});
  Tensor mask = from_vector<int64_t>({1, 0, 1, 0}, {2, 2}).to(kBool);
  CHECK(values(masked_scatter(zeros({2, 2}, kInt64), mask, arange(1, 5))) ==
        std::vector<int64_t>{1, 0, 2, 0});
  CHECK_THROWS_AS(put(x, from_vector<int64_t>({4}, {1}), ones({1}, kInt64)), IndexError);
}
