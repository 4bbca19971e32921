// bfloat16 matrix products through oneDNN's matmul primitive: bfloat16 operands,
// float32 accumulation, one rounding to bfloat16 at the end (what the float32
// fallback of matmul.cpp computes, at the speed of the CPU's BF16 dot-product
// instructions, AVX512-BF16's vdpbf16ps, where it has them). See onednn_matmul.cpp.
#pragma once
#include <cstdint>
#include <string>

#include "ember/half.h"

namespace ember::cpu::onednn {

// A batch of row-major-or-strided matrices: element (i, r, c) at
// data[i * stride[0] + r * stride[1] + c * stride[2]].
struct MatrixBatch {
  int64_t batch, rows, cols;
  int64_t stride[3];
};

// c = alpha * a @ b + beta * c for each of the batch (beta == 0: c is only
// written). False when oneDNN is not there, has no native bfloat16 kernel for
// this CPU (its reference loops would be slower than the float32 fallback) or
// rejects the layouts; the caller then computes the product itself.
bool matmul_bf16(const MatrixBatch& a, const BFloat16* ap, const MatrixBatch& b, const BFloat16* bp,
                 const MatrixBatch& c, BFloat16* cp, float alpha, float beta);

// The oneDNN implementation of the last product of this shape class, e.g.
// "brg:avx512_core_bf16" ("" before any): for tests and benchmarks.
std::string matmul_bf16_impl();

}  // namespace ember::cpu::onednn
