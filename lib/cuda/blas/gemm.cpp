// Batched matrix products through cublasGemmEx / cublasGemmStridedBatchedEx (the
// 64-bit-size variants, so no size or leading dimension is limited to 2^31).
// Note [Row-major on cuBLAS] in gemm.h says how operands are handed over.
#include "cuda/blas/gemm.h"

#include "cuda/blas/cublas_context.h"
#include "cuda/launch.h"
#include "ember/ops/factories.h"

namespace ember::cuda::blas {

void check_blas_dtype(const char* op, DType dtype) {
  EMBER_CHECK_AS(NotImplementedError,
                 dtype == kFloat32 || dtype == kFloat64 || dtype == kFloat16 || dtype == kBFloat16,
                 op, ": not implemented for '", scalar_type_name(dtype), "' on CUDA (cuBLAS "
                 "multiplies float32, float64, float16 and bfloat16; compute integer products on "
                 "the CPU or in a float dtype)");
}

cudaDataType_t cuda_data_type(DType dtype) {
  switch (dtype) {
    case kFloat32: return CUDA_R_32F;
    case kFloat64: return CUDA_R_64F;
    case kFloat16: return CUDA_R_16F;
    case kBFloat16: return CUDA_R_16BF;
    default: break;
  }
  throw NotImplementedError(::ember::detail::str("cuBLAS: no CUDA data type for ", dtype_name(dtype)));
}

std::string describe_product(const char* op, const Tensor& a, const Tensor& b) {
  return ::ember::detail::str(op, ": ", dtype_name(a.dtype()), " ", shape_str(a.sizes()), " @ ",
                              shape_str(b.sizes()), " on ", a.device().str());
}

Operand operand(const Tensor& x, bool c_trans) {
  BlasLayout l = matrix_layout(x);
  Tensor t = x;
  if (!l.ok) {
    t = x.contiguous();
    l = matrix_layout(t);
  }
  return {t, l.trans != c_trans ? CUBLAS_OP_T : CUBLAS_OP_N, l.ld};
}

namespace {

// The compute type and the alpha/beta values (in the compute type's scalar type).
struct GemmScalars {
  cublasComputeType_t compute;
  double alpha_d, beta_d;
  float alpha_f, beta_f;
  const void* alpha() const { return compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&alpha_d) : &alpha_f; }
  const void* beta() const { return compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&beta_d) : &beta_f; }
};

GemmScalars gemm_scalars(DType dtype, const Scalar& alpha, const Scalar& beta) {
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;  // float16/bfloat16 accumulate in float
  if (dtype == kFloat64) compute = CUBLAS_COMPUTE_64F;
  else if (dtype == kFloat32 && cuda::matmul_allow_tf32()) compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  return {compute, alpha.to_double(), beta.to_double(), alpha.to<float>(), beta.to<float>()};
}

char op_char(cublasOperation_t op) { return op == CUBLAS_OP_N ? 'N' : 'T'; }

// c (3-d, on the device) with distinct matrices that cuBLAS can write as they lie.
bool writable_in_place(const Tensor& c) {
  return matrix_layout(c).ok && (c.size(0) <= 1 || c.stride(0) != 0);
}

// The product into c, which writable_in_place(c) accepts; m, n, k >= 1.
void gemm_into(const Tensor& a_in, const Tensor& b_in, const Tensor& c, const Scalar& alpha,
               const Scalar& beta, const char* op) {
  int64_t batch = c.size(0), m = c.size(1), n = c.size(2), k = a_in.size(2);
  BlasLayout lc = matrix_layout(c);
  Operand a = operand(a_in, lc.trans), b = operand(b_in, lc.trans);
  // Row-major C: C^T = B^T A^T (first operand b, sizes n x m). Column-major C: C = A B.
  const Operand& first = lc.trans ? a : b;
  const Operand& second = lc.trans ? b : a;
  int64_t rows = lc.trans ? m : n, cols = lc.trans ? n : m;
  cudaDataType_t type = cuda_data_type(c.dtype());
  GemmScalars s = gemm_scalars(c.dtype(), alpha, beta);
  LaunchContext ctx(c);
  BlasContext blas = blas_context(c.device().index, ctx.stream);
  auto what = [&] {
    return ::ember::detail::str(describe_product(op, a_in, b_in), " (batch ", batch, ", cuBLAS ",
                                op_char(first.op), op_char(second.op), " m=", rows, " n=", cols,
                                " k=", k, " lda=", first.ld, " ldb=", second.ld, " ldc=", lc.ld, ")");
  };
  if (batch == 1) {
    EMBER_CUBLAS(cublas_library(), cublasGemmEx_64, what(), blas.handle, first.op, second.op, rows,
                 cols, k, s.alpha(), first.t.data_ptr(), type, first.ld, second.t.data_ptr(), type,
                 second.ld, s.beta(), c.data_ptr(), type, lc.ld, s.compute, CUBLAS_GEMM_DEFAULT);
    return;
  }
  EMBER_CUBLAS(cublas_library(), cublasGemmStridedBatchedEx_64, what(), blas.handle, first.op,
               second.op, rows, cols, k, s.alpha(), first.t.data_ptr(), type, first.ld,
               static_cast<long long>(first.t.stride(0)), second.t.data_ptr(), type, second.ld,
               static_cast<long long>(second.t.stride(0)), s.beta(), c.data_ptr(), type, lc.ld,
               static_cast<long long>(c.stride(0)), batch, s.compute, CUBLAS_GEMM_DEFAULT);
}

}  // namespace

void batched_gemm(const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& alpha,
                  const Scalar& beta, const char* op) {
  check_blas_dtype(op, c.dtype());
  int64_t batch = c.size(0), m = c.size(1), n = c.size(2), k = a.size(2);
  if (batch == 0 || m == 0 || n == 0) return;
  bool beta_zero = beta.to_double() == 0.0;
  if (k == 0) {  // no products: beta * c (c only written when beta == 0)
    if (beta_zero) Tensor(c).zero_();
    else if (beta.to_double() != 1.0) Tensor(c).mul_(beta);
    return;
  }
  if (writable_in_place(c)) return gemm_into(a, b, c, alpha, beta, op);
  Tensor out = empty(c.sizes(), TensorOptions(c.dtype()).device(c.device()));
  if (!beta_zero) out.copy_(c);
  gemm_into(a, b, out, alpha, beta, op);
  Tensor(c).copy_(out);
}

}  // namespace ember::cuda::blas
