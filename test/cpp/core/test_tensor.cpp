#include <catch2/catch.hpp>

#include "ember/ember.h"

using namespace ember;

TEST_CASE("empty and factories make contiguous tensors of the right dtype") {
  Tensor z = zeros({2, 3});
  CHECK(z.dtype() == kFloat32);
  CHECK(z.sizes() == DimVector{2, 3});
  CHECK(z.strides() == DimVector{3, 1});
  CHECK(z.is_contiguous());
  for (int64_t i = 0; i < 6; ++i) CHECK(z.data_ptr<float>()[i] == 0.0f);
  Tensor f = full({4}, 7);
  CHECK(f.dtype() == kInt64);
  CHECK(f.data_ptr<int64_t>()[3] == 7);
  CHECK(full({2}, 2.5, kFloat64).data_ptr<double>()[1] == 2.5);
}

TEST_CASE("arange, linspace and eye") {
  Tensor a = arange(0, 10, 3);
  REQUIRE(a.numel() == 4);
  CHECK(a.dtype() == kInt64);
  CHECK(a.data_ptr<int64_t>()[3] == 9);
  Tensor b = arange(0.0, 1.0, 0.25);
  CHECK(b.numel() == 4);
  CHECK(b.dtype() == kFloat32);
  Tensor l = linspace(0, 1, 5, kFloat64);
  CHECK(l.data_ptr<double>()[4] == 1.0);
  CHECK(l.data_ptr<double>()[1] == 0.25);
  Tensor e = eye(3, 2);
  CHECK(e.data_ptr<float>()[0] == 1.0f);
  CHECK(e.data_ptr<float>()[1] == 0.0f);
  CHECK(e.data_ptr<float>()[3] == 1.0f);
}

TEST_CASE("views share storage and bump one version") {
  Tensor x = arange(12).reshape({3, 4});
  Tensor tr = x.t();
  CHECK(tr.sizes() == DimVector{4, 3});
  CHECK(tr.strides() == DimVector{1, 4});
  CHECK_FALSE(tr.is_contiguous());
  CHECK(tr.impl()->storage() == x.impl()->storage());
  uint64_t v = x.version();
  Tensor col = x.select(1, 2);
  col.fill_(-1);
  CHECK(x.version() == v + 1);
  CHECK(x.data_ptr<int64_t>()[2] == -1);
  CHECK(x.data_ptr<int64_t>()[6] == -1);
  CHECK(x.data_ptr<int64_t>()[3] == 3);
}

TEST_CASE("view refuses incompatible strides, reshape copies") {
  Tensor x = arange(6).reshape({2, 3}).t();
  CHECK_THROWS_AS(x.view({6}), Error);
  Tensor r = x.reshape({6});
  CHECK(r.is_contiguous());
  CHECK(r.data_ptr<int64_t>()[1] == 3);
}

TEST_CASE("slice, narrow, expand, squeeze, unsqueeze, permute, flatten") {
  Tensor x = arange(24).reshape({2, 3, 4});
  Tensor s = x.slice(2, 1, std::nullopt, 2);
  CHECK(s.sizes() == DimVector{2, 3, 2});
  CHECK(s.strides() == DimVector{12, 4, 2});
  CHECK(s.storage_offset() == 1);
  CHECK(x.narrow(1, 1, 2).sizes() == DimVector{2, 2, 4});
  Tensor e = arange(3).unsqueeze(1).expand({3, 5});
  CHECK(e.strides() == DimVector{1, 0});
  CHECK(e.contiguous().data_ptr<int64_t>()[5] == 1);
  CHECK(zeros({1, 3, 1}).squeeze().sizes() == DimVector{3});
  CHECK(x.permute({2, 0, 1}).sizes() == DimVector{4, 2, 3});
  CHECK(x.flatten(1).sizes() == DimVector{2, 12});
  CHECK_THROWS_AS(x.select(1, 3), IndexError);
  CHECK_THROWS_AS(x.transpose(0, 3), IndexError);
}

TEST_CASE("to converts dtypes, copy_ broadcasts") {
  Tensor x = arange(4).to(kFloat16);
  CHECK(x.dtype() == kFloat16);
  Tensor y = x.to(kFloat64);
  CHECK(y.data_ptr<double>()[3] == 3.0);
  Tensor dst = zeros({2, 4});
  dst.copy_(arange(4));
  CHECK(dst.data_ptr<float>()[7] == 3.0f);
  CHECK(arange(3).to(kBool).data_ptr<bool>()[0] == false);
}

TEST_CASE("random factories are reproducible and in range") {
  manual_seed(42);
  Tensor a = rand({1000});
  manual_seed(42);
  Tensor b = rand({1000});
  for (int i = 0; i < 1000; ++i) {
    CHECK(a.data_ptr<float>()[i] == b.data_ptr<float>()[i]);
    CHECK(a.data_ptr<float>()[i] >= 0.0f);
    CHECK(a.data_ptr<float>()[i] < 1.0f);
  }
  Tensor n = randn({20000}, kFloat64);
  double sum = 0, sq = 0;
  for (int i = 0; i < 20000; ++i) { double v = n.data_ptr<double>()[i]; sum += v; sq += v * v; }
  CHECK(std::abs(sum / 20000) < 0.05);
  CHECK(std::abs(sq / 20000 - 1.0) < 0.05);
  Tensor p = randperm(50);
  std::vector<int> seen(50, 0);
  for (int i = 0; i < 50; ++i) seen[p.data_ptr<int64_t>()[i]]++;
  for (int c : seen) CHECK(c == 1);
}

TEST_CASE("item and printing") {
  CHECK(full({}, 3.5).item<double>() == 3.5);
  CHECK_THROWS_AS(zeros({2}).item(), Error);
  CHECK(arange(3).str() == "tensor([0, 1, 2])");
}
