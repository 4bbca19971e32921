// cuDNN is opened at run time (lib/cuda/dnn/cudnn_common.h): where the library is
// installed it loads and reports version 9 (cudnnGetVersion needs no GPU); where it
// is not, the test says so and passes.
#ifdef EMBER_WITH_CUDA
#include <catch2/catch.hpp>

#include "cuda/dnn/cudnn_probe.h"

using namespace ember::cuda::dnn;

TEST_CASE("cuDNN loads at run time and is version 9", "[cuda][cudnn]") {
  const size_t version = cudnn_version_or_zero();
  if (version == 0) {
    WARN("skipped: cuDNN is not installed");
    return;
  }
  CHECK(version / 10000 == 9);
}

TEST_CASE("cuDNN's 32-bit sizes are checked", "[cuda][cudnn]") {
  CHECK(to_cudnn_int(7, "width") == 7);
  CHECK_THROWS_WITH(to_cudnn_int(int64_t(1) << 31, "batch"), Catch::Contains("does not fit cuDNN's 32-bit sizes"));
  CHECK_THROWS(to_cudnn_int(-1, "batch"));
}
#endif
