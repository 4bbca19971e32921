// The numerics switches of the CUDA libraries (ember/cuda.h): plain settings that
// exist, with PyTorch's defaults, in every build.
#include <catch2/catch.hpp>

#include "ember/ember.h"

using namespace ember;

TEST_CASE("matmul precision and the cuBLAS/cuDNN switches", "[backends]") {
  std::string saved = get_float32_matmul_precision();
  bool cudnn_tf32 = cuda::cudnn_allow_tf32(), benchmark = cuda::cudnn_benchmark();
  set_float32_matmul_precision("highest");
  CHECK_FALSE(cuda::matmul_allow_tf32());
  set_float32_matmul_precision("high");
  CHECK(cuda::matmul_allow_tf32());
  set_float32_matmul_precision("Medium");
  CHECK(get_float32_matmul_precision() == "medium");
  CHECK(cuda::matmul_allow_tf32());
  cuda::set_matmul_allow_tf32(false);
  CHECK(get_float32_matmul_precision() == "highest");
  cuda::set_matmul_allow_tf32(true);
  CHECK(get_float32_matmul_precision() == "high");
  CHECK_THROWS_AS(set_float32_matmul_precision("fast"), ValueError);
  CHECK(get_float32_matmul_precision() == "high");
  cuda::set_cudnn_allow_tf32(!cudnn_tf32);
  CHECK(cuda::cudnn_allow_tf32() == !cudnn_tf32);
  cuda::set_cudnn_benchmark(!benchmark);
  CHECK(cuda::cudnn_benchmark() == !benchmark);
  cuda::set_cudnn_allow_tf32(cudnn_tf32);
  cuda::set_cudnn_benchmark(benchmark);
  set_float32_matmul_precision(saved);
}
