// The host-side logic of the CUDA elementwise kernels (lib/cuda/offset_calculator.h):
// magic-number division, coalescing of dims, byte offsets of every operand, and the
// split into 32-bit parts. Plain C++, so it runs without a GPU (CUDA builds only).
#ifdef EMBER_WITH_CUDA
#include <catch2/catch.hpp>

#include <random>

#include "cuda/offset_calculator.h"
#include "cuda/strided_kernels.h"
#include "ember/ember.h"

using namespace ember;
using namespace ember::cuda;

TEST_CASE("IntDivider divides like the / operator", "[cuda][offsets]") {
  std::mt19937 rng(7);
  std::vector<uint32_t> divisors = {1, 2, 3, 5, 7, 10, 64, 255, 256, 1000, 65535, 65536, 65537,
                                    (1u << 30) - 1, 1u << 30, (1u << 31) - 1};
  for (int i = 0; i < 200; ++i) divisors.push_back(1 + rng() % ((1u << 31) - 1));
  std::vector<uint32_t> numerators = {0, 1, 2, 1000, (1u << 31) - 1, (1u << 31) - 2};
  for (int i = 0; i < 200; ++i) numerators.push_back(rng() % (1u << 31));
  for (uint32_t d : divisors) {
    IntDivider div(d);
    for (uint32_t n : numerators) {
      INFO(n << " / " << d);
      REQUIRE(div.div(n) == n / d);
    }
    for (uint32_t k = 0; k < 4; ++k) {  // around multiples of d
      uint64_t m = uint64_t(d) * (rng() % 64 + 1);
      for (int64_t n : {int64_t(m) - 1, int64_t(m), int64_t(m) + 1})
        if (n >= 0 && n < (int64_t(1) << 31)) REQUIRE(div.div(uint32_t(n)) == uint32_t(n) / d);
    }
  }
}

namespace {

// Byte offsets of element `linear` of t (broadcast to `sizes`), computed plainly.
int64_t plain_offset(const Tensor& t, const DimVector& sizes, int64_t linear) {
  ByteStrides strides = broadcast_byte_strides(t, sizes);
  int64_t off = 0;
  for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
    off += (linear % sizes[d]) * strides[d];
    linear /= sizes[d];
  }
  return off;
}

void check_offsets(const Tensor& out, const Tensor& in) {
  const DimVector& sizes = out.sizes();
  OperandStrides strides{broadcast_byte_strides(out, sizes), broadcast_byte_strides(in, sizes)};
  char* base = nullptr;
  ElementwiseGeometry g = coalesce(GeometrySizes(sizes.begin(), sizes.end()), strides, {base, base});
  REQUIRE(g.numel() == out.numel());
  auto calc = make_offset_calculator<2>(g);
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t off[2];
    calc.offsets(uint32_t(i), off);
    INFO("element " << i << " of " << shape_str(sizes));
    REQUIRE(off[0] == plain_offset(out, sizes, i));
    REQUIRE(off[1] == plain_offset(in, sizes, i));
  }
}

}  // namespace

TEST_CASE("coalesced offsets match plain strided indexing", "[cuda][offsets]") {
  Tensor out = empty({3, 4, 5});
  SECTION("contiguous operands merge into one dim") {
    Tensor in = empty({3, 4, 5});
    OperandStrides s{broadcast_byte_strides(out, out.sizes()), broadcast_byte_strides(in, out.sizes())};
    ElementwiseGeometry g = coalesce({3, 4, 5}, s, {nullptr, nullptr});
    REQUIRE(g.sizes == GeometrySizes{60});
    check_offsets(out, in);
  }
  SECTION("a transposed input") { check_offsets(out, empty({5, 4, 3}).permute({2, 1, 0})); }
  SECTION("a broadcast row and column") {
    check_offsets(out, empty({4, 1}));
    check_offsets(out, empty({5}));
    check_offsets(out, empty({3, 1, 5}));
  }
  SECTION("a sliced input with steps") { check_offsets(out, empty({6, 4, 10}).slice(0, 0, 6, 2).slice(2, 1, 10, 2)); }
  SECTION("a non-contiguous output") { check_offsets(empty({4, 5, 3}).permute({2, 0, 1}), empty({3, 4, 5})); }
  SECTION("0-dim and size-1 dims") {
    check_offsets(empty({}), empty({}));
    check_offsets(empty({1, 7, 1}), empty({7, 1}));
  }
}

TEST_CASE("strided copies and fills take the elementwise offsets", "[cuda][offsets]") {
  // Random geometries in elements, with different element sizes for the two sides
  // (a converting copy), against the plain per-dim division of the old kernels.
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    StridedGeometry g;
    g.ndim = static_cast<int>(rng() % 6);
    int64_t numel = 1;
    for (int d = 0; d < g.ndim; ++d) {
      g.sizes[d] = 1 + static_cast<int64_t>(rng() % 5);
      g.dst_strides[d] = static_cast<int64_t>(rng() % 40);
      g.src_strides[d] = rng() % 4 == 0 ? 0 : static_cast<int64_t>(rng() % 40);  // broadcasts too
      numel *= g.sizes[d];
    }
    const size_t dst_size = 1u << (rng() % 4), src_size = 1u << (rng() % 4);
    for (bool fill : {false, true}) {
      ElementwiseGeometry eg;
      REQUIRE(as_elementwise(g, nullptr, dst_size, fill ? nullptr : reinterpret_cast<void*>(8), src_size, eg));
      REQUIRE(eg.numel() == numel);
      REQUIRE(eg.base.size() == (fill ? 1u : 2u));
      auto calc2 = make_offset_calculator<2>(fill ? ElementwiseGeometry{} : eg);
      auto calc1 = make_offset_calculator<1>(eg);
      for (int64_t i = 0; i < numel; ++i) {
        int64_t rest = i, d_expect = 0, s_expect = 0;
        for (int d = g.ndim - 1; d >= 0; --d) {
          d_expect += (rest % g.sizes[d]) * g.dst_strides[d];
          s_expect += (rest % g.sizes[d]) * g.src_strides[d];
          rest /= g.sizes[d];
        }
        if (fill) {
          int64_t off[1];
          calc1.offsets(static_cast<uint32_t>(i), off);
          REQUIRE(off[0] == d_expect * static_cast<int64_t>(dst_size));
        } else {
          int64_t off[2];
          calc2.offsets(static_cast<uint32_t>(i), off);
          REQUIRE(off[0] == d_expect * static_cast<int64_t>(dst_size));
          REQUIRE(off[1] == s_expect * static_cast<int64_t>(src_size));
        }
      }
    }
  }
  StridedGeometry deep;
  deep.ndim = kMaxElementwiseDims + 1;
  ElementwiseGeometry eg;
  CHECK_FALSE(as_elementwise(deep, nullptr, 4, nullptr, 4, eg));  // the plain kernels take it
}

TEST_CASE("for_each_32bit_part splits large geometries exactly", "[cuda][offsets]") {
  auto cover = [](const ElementwiseGeometry& g) {
    int64_t total = 0;
    std::vector<std::pair<int64_t, int64_t>> parts;  // (base of operand 0, numel)
    for_each_32bit_part(g, [&](const ElementwiseGeometry& p) {
      REQUIRE(p.numel() < (int64_t(1) << 31));
      total += p.numel();
      parts.emplace_back(p.base[0] - g.base[0], p.numel());
    });
    REQUIRE(total == g.numel());
    return parts;
  };
  char* base = reinterpret_cast<char*>(uintptr_t(1) << 40);  // never dereferenced
  SECTION("a small geometry is one part") {
    ElementwiseGeometry g = coalesce({100}, {{4}, {4}}, {base, base});
    REQUIRE(cover(g).size() == 1);
  }
  SECTION("one long run is cut into runs") {
    int64_t n = (int64_t(1) << 32) + 5;
    ElementwiseGeometry g = coalesce({n}, {{2}, {2}}, {base, base});
    auto parts = cover(g);
    REQUIRE(parts.size() == 3);
    REQUIRE(parts[1].first == 2 * parts[0].second);
  }
  SECTION("rows of a 2-d geometry stay whole") {
    ElementwiseGeometry g = coalesce({3000, 1000000}, {{8, 24000}, {0, 8}}, {base, base});
    auto parts = cover(g);
    REQUIRE(parts.size() == 2);
    REQUIRE(parts[1].first == 8 * (parts[0].second / 1000000));
  }
}
#endif  // EMBER_WITH_CUDA
