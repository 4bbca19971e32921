// addmm with a bias vector (nn.Linear's product) as one cuBLASLt matmul with the
// BIAS epilogue: the bias is added while the result tile is still in registers,
// instead of a copy of the bias into the output before the product. The conditions
// are PyTorch's (aten/src/ATen/native/cuda/Blas.cpp, useLtInterface); where they do
// not hold, or cuBLASLt offers no algorithm, the caller falls back to cublasGemmEx.
#include "cuda/blas/cublas_context.h"
#include "cuda/blas/gemm.h"
#include "cuda/launch.h"

namespace ember::cuda::blas {

namespace {

// The largest power of two (at most 256) that divides the address: cuBLASLt assumes
// 256-byte aligned buffers unless told otherwise, and a view may start anywhere.
uint32_t alignment_of(const void* p) {
  auto address = reinterpret_cast<uintptr_t>(p);
  uint32_t alignment = 1;
  while (alignment < 256 && address % (alignment * 2) == 0) alignment *= 2;
  return alignment;
}

// Owners of the cuBLASLt descriptors of one call (destroyed on every path out).
struct MatmulDesc {
  cublasLtMatmulDesc_t desc = nullptr;
  ~MatmulDesc() {
    if (desc) EMBER_DYNAMIC_FN(cublaslt_library(), cublasLtMatmulDescDestroy)(desc);
  }
};
struct Layout {
  cublasLtMatrixLayout_t layout = nullptr;
  ~Layout() {
    if (layout) EMBER_DYNAMIC_FN(cublaslt_library(), cublasLtMatrixLayoutDestroy)(layout);
  }
};
struct Preference {
  cublasLtMatmulPreference_t pref = nullptr;
  ~Preference() {
    if (pref) EMBER_DYNAMIC_FN(cublaslt_library(), cublasLtMatmulPreferenceDestroy)(pref);
  }
};

// PyTorch's limits for this path: every size above 1 (cuBLASLt has had wrong results
// and failures for degenerate shapes) and below 65535 * 32.
bool sizes_fit(int64_t m, int64_t n, int64_t k) {
  constexpr int64_t kMax = int64_t(65535) * 32;
  return m > 1 && n > 1 && k > 1 && m < kMax && n < kMax && k < kMax;
}

}  // namespace

bool gemm_bias_lt(const Tensor& a_in, const Tensor& b_in, const Tensor& bias, const Tensor& c,
                  const Scalar& alpha, const char* op) {
  DType dtype = c.dtype();
  if (dtype != kFloat32 && dtype != kFloat64 && dtype != kFloat16 && dtype != kBFloat16) return false;
  int64_t m = c.size(0), n = c.size(1), k = a_in.size(1);
  if (!sizes_fit(m, n, k)) return false;
  if (bias.dim() != 1 || bias.size(0) != n || bias.stride(0) != 1 || bias.dtype() != dtype ||
      bias.device() != c.device())
    return false;
  BlasLayout lc = blas_layout(m, n, c.stride(0), c.stride(1));
  if (!lc.ok || lc.trans) return false;  // the bias runs along the rows of C^T (n x m)
  // Note [Row-major on cuBLAS]: D^T [n, m] = op(B^T) [n, k] @ op(A^T) [k, m] + bias[n].
  Operand a = operand(a_in.unsqueeze(0), false), b = operand(b_in.unsqueeze(0), false);
  cudaDataType_t type = cuda_data_type(dtype);
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  cudaDataType_t scale_type = CUDA_R_32F;
  if (dtype == kFloat64) {
    compute = CUBLAS_COMPUTE_64F;
    scale_type = CUDA_R_64F;
  } else if (dtype == kFloat32 && cuda::matmul_allow_tf32()) {
    compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  }
  double alpha_d = alpha.to_double(), beta_d = 0.0;
  float alpha_f = alpha.to<float>(), beta_f = 0.0f;
  const void* alpha_p = dtype == kFloat64 ? static_cast<const void*>(&alpha_d) : &alpha_f;
  const void* beta_p = dtype == kFloat64 ? static_cast<const void*>(&beta_d) : &beta_f;

  LaunchContext ctx(c);
  BlasContext blas = blas_context(c.device().index, ctx.stream, /*with_lt=*/true);
  auto what = [&] {
    return ::ember::detail::str(describe_product(op, a_in, b_in), " + bias ",
                                shape_str(bias.sizes()), " (cuBLASLt, lda=", b.ld, " ldb=", a.ld,
                                " ldc=", lc.ld, ")");
  };
  MatmulDesc desc;
  EMBER_CUBLAS(cublaslt_library(), cublasLtMatmulDescCreate, what(), &desc.desc, compute, scale_type);
  auto set_desc = [&](cublasLtMatmulDescAttributes_t attr, const void* value, size_t size) {
    EMBER_CUBLAS(cublaslt_library(), cublasLtMatmulDescSetAttribute, what(), desc.desc, attr, value, size);
  };
  int32_t trans_a = b.op, trans_b = a.op;
  uint32_t epilogue = CUBLASLT_EPILOGUE_BIAS;
  const void* bias_ptr = bias.data_ptr();
  set_desc(CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof(trans_a));
  set_desc(CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof(trans_b));
  set_desc(CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue));
  set_desc(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias_ptr, sizeof(bias_ptr));

  // The stored (column-major) shapes: an operand with op N is stored as used.
  Layout la, lb, ld;
  EMBER_CUBLAS(cublaslt_library(), cublasLtMatrixLayoutCreate, what(), &la.layout, type,
               static_cast<uint64_t>(b.op == CUBLAS_OP_N ? n : k),
               static_cast<uint64_t>(b.op == CUBLAS_OP_N ? k : n), b.ld);
  EMBER_CUBLAS(cublaslt_library(), cublasLtMatrixLayoutCreate, what(), &lb.layout, type,
               static_cast<uint64_t>(a.op == CUBLAS_OP_N ? k : m),
               static_cast<uint64_t>(a.op == CUBLAS_OP_N ? m : k), a.ld);
  EMBER_CUBLAS(cublaslt_library(), cublasLtMatrixLayoutCreate, what(), &ld.layout, type, static_cast<uint64_t>(n),
               static_cast<uint64_t>(m), lc.ld);

  Preference pref;
  EMBER_CUBLAS(cublaslt_library(), cublasLtMatmulPreferenceCreate, what(), &pref.pref);
  auto set_pref = [&](cublasLtMatmulPreferenceAttributes_t attr, const void* value, size_t size) {
    EMBER_CUBLAS(cublaslt_library(), cublasLtMatmulPreferenceSetAttribute, what(), pref.pref, attr, value, size);
  };
  uint64_t workspace = blas.workspace_size;
  uint32_t align_a = alignment_of(b.t.data_ptr()), align_b = alignment_of(a.t.data_ptr()),
           align_c = alignment_of(c.data_ptr());
  set_pref(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof(workspace));
  set_pref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align_a, sizeof(align_a));
  set_pref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align_b, sizeof(align_b));
  set_pref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align_c, sizeof(align_c));
  set_pref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align_c, sizeof(align_c));

  cublasLtMatmulHeuristicResult_t heuristic = {};
  int found = 0;
  cublasStatus_t status = EMBER_DYNAMIC_FN(cublaslt_library(), cublasLtMatmulAlgoGetHeuristic)(
      blas.lt, desc.desc, la.layout, lb.layout, ld.layout, ld.layout, pref.pref, 1, &heuristic, &found);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED || (status == CUBLAS_STATUS_SUCCESS && found == 0))
    return false;
  if (status != CUBLAS_STATUS_SUCCESS) throw_cublas_error(status, "cublasLtMatmulAlgoGetHeuristic", what());
  // C is D with beta = 0: only written.
  status = EMBER_DYNAMIC_FN(cublaslt_library(), cublasLtMatmul)(blas.lt, desc.desc, alpha_p, b.t.data_ptr(), la.layout,
                                                a.t.data_ptr(), lb.layout, beta_p, c.data_ptr(),
                                                ld.layout, c.data_ptr(), ld.layout, &heuristic.algo,
                                                blas.workspace, blas.workspace_size, ctx.stream);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED) return false;
  if (status != CUBLAS_STATUS_SUCCESS) throw_cublas_error(status, "cublasLtMatmul", what());
  return true;
}

}  // namespace ember::cuda::blas
