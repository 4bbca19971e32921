// The host-side logic of the CUDA reductions (lib/cuda/reduce/reduce_geometry.h): the
// [outer, R, inner] view of an input for a set of reduced dims. Run on CPU tensors
// (the logic is device-independent), so it runs without a GPU (CUDA builds only).
#ifdef EMBER_WITH_CUDA
#include <catch2/catch.hpp>

#include <algorithm>

#include "cuda/reduce/reduce_geometry.h"
#include "ember/ember.h"

using namespace ember;
using namespace ember::cuda::reduce;

namespace {

void require_shape(const ReduceShape& s, int64_t outer, int64_t R, int64_t inner) {
  REQUIRE(s.outer == outer);
  REQUIRE(s.R == R);
  REQUIRE(s.inner == inner);
}

// Element (o, r, i) of the prepared input equals the CPU's view of it: every output's
// values in the reduced dims' row-major order.
void require_values(const ReduceInput& in, const Tensor& expected_outer_r_inner) {
  REQUIRE(in.x.is_contiguous());
  Tensor want = expected_outer_r_inner.contiguous();
  REQUIRE(in.x.numel() == want.numel());
  const int64_t* g = in.x.data_ptr<int64_t>();
  const int64_t* w = want.data_ptr<int64_t>();
  REQUIRE(std::equal(g, g + want.numel(), w));
}

}  // namespace

TEST_CASE("prepare_reduce views consecutive reduced dims without a permute", "[cuda][reduce]") {
  Tensor x = arange(2 * 3 * 4 * 5).reshape({2, 3, 4, 5});
  ReduceInput a = prepare_reduce(x, {1, 2});
  require_shape(a.shape, 2, 12, 5);
  require_values(a, x.reshape({2, 12, 5}));
  ReduceInput b = prepare_reduce(x, {3});
  require_shape(b.shape, 24, 5, 1);
  ReduceInput c = prepare_reduce(x, {0, 1, 2, 3});
  require_shape(c.shape, 1, 120, 1);
  ReduceInput d = prepare_reduce(x, {});  // nothing reduced
  require_shape(d.shape, 120, 1, 1);
}

TEST_CASE("prepare_reduce moves kept dims in front of scattered reduced dims", "[cuda][reduce]") {
  Tensor x = arange(2 * 3 * 4 * 5).reshape({2, 3, 4, 5});
  ReduceInput a = prepare_reduce(x, {0, 2});
  require_shape(a.shape, 15, 8, 1);
  require_values(a, x.permute({1, 3, 0, 2}).reshape({15, 8, 1}));
  // Size-1 dims between reduced dims do not break the run.
  Tensor y = arange(2 * 4 * 3).reshape({2, 1, 4, 3});
  ReduceInput b = prepare_reduce(y, {0, 2});
  require_shape(b.shape, 1, 8, 3);
  require_values(b, y.reshape({1, 8, 3}));
}

TEST_CASE("prepare_reduce handles views, empty and 0-dim inputs", "[cuda][reduce]") {
  Tensor x = arange(24).reshape({4, 6}).t();  // [6, 4], transposed
  ReduceInput a = prepare_reduce(x, {0});
  require_shape(a.shape, 1, 6, 4);
  require_values(a, x.reshape({1, 6, 4}));
  ReduceInput e = prepare_reduce(zeros({0, 3}), {0});
  require_shape(e.shape, 1, 0, 3);
  ReduceInput s = prepare_reduce(scalar_tensor(2.5), {});
  require_shape(s.shape, 1, 1, 1);
  require_shape(along_dim(zeros({2, 3, 4}), 1), 2, 3, 4);
  require_shape(along_dim(scalar_tensor(1.0), 0), 1, 1, 1);
}
#endif
