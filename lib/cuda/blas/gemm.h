// Matrix products on cuBLAS for the kernels of lib/cuda/blas/matmul.cpp.
//
// Note [Row-major on cuBLAS]: cuBLAS is column-major. A row-major matrix X [r, c]
// with leading dimension ld is, to cuBLAS, the column-major X^T [c, r] with the same
// ld; the transpose of a row-major matrix is a column-major one. So C = A @ B with a
// row-major C is computed as C^T = B^T @ A^T (operands swapped, m and n swapped),
// and with a column-major C (a transposed output) as C = A @ B directly; each
// operand is passed as it lies, with op N or T and its leading dimension
// (kernels/blas_layout.h), and copied only when no (op, ld) describes it.
#pragma once
#include <cublas_v2.h>

#include <string>

#include "kernels/blas_layout.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember::cuda::blas {

// Raises NotImplementedError naming op and dtype unless cuBLAS multiplies `dtype`
// (float32, float64, float16, bfloat16), as PyTorch's CUDA does for integers.
void check_blas_dtype(const char* op, DType dtype);

// c[i] = alpha * a[i] @ b[i] + beta * c[i] for 3-d a [B,m,k], b [B,k,n], c [B,m,n] on
// one CUDA device, queued on its current stream. a and b may have any strides (a
// batch stride of 0 broadcasts one matrix over the batch); c any writable layout
// with distinct elements. beta == 0 only writes c (NaNs in it are ignored); k == 0
// gives beta * c. float32 uses TensorFloat-32 when cuda::matmul_allow_tf32();
// float16/bfloat16 accumulate in float32.
void batched_gemm(const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& alpha,
                  const Scalar& beta, const char* op);

// c = alpha * a @ b + bias (bias [n] added to every row) through cuBLASLt's BIAS
// epilogue, for addmm with beta == 1 and a bias vector (nn.Linear). a [m,k], b [k,n],
// c [m,n] (distinct from bias). Returns false, having done nothing, where this path
// does not apply or cuBLASLt has no algorithm for it; the caller then uses
// batched_gemm.
bool gemm_bias_lt(const Tensor& a, const Tensor& b, const Tensor& bias, const Tensor& c,
                  const Scalar& alpha, const char* op);

// The cuBLAS view of one operand: the tensor handed over (the input or a contiguous
// copy), its op and leading dimension (Note [Row-major on cuBLAS]).
struct Operand {
  Tensor t;
  cublasOperation_t op;
  int64_t ld;
};
// Operand of the 3-d matrix x [B, rows, cols] for `c_trans` (whether C is handed over
// column-major): copied to contiguous when no layout describes it.
Operand operand(const Tensor& x, bool c_trans);

cudaDataType_t cuda_data_type(DType dtype);  // CUDA_R_32F, ... (a float dtype)

// "mm: float32 [64, 32] @ [32, 16]", for error messages.
std::string describe_product(const char* op, const Tensor& a, const Tensor& b);

}  // namespace ember::cuda::blas
