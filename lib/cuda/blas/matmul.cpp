// CUDA kernels of the matrix products mm, bmm, addmm, mv: the CPU kernels' rules
// (lib/cpu/matmul.cpp: output dtype and shape, preset outputs, beta == 0 ignoring
// self) on cuBLAS (gemm.h). mv is a product with a one-column matrix, which cuBLAS
// runs as a matrix-vector kernel.
#include "cuda/blas/gemm.h"
#include "cuda/launch.h"
#include "dispatch/args/linalg.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/linalg.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"

namespace ember::cuda::blas {
namespace {

Tensor output_or_new(OpCall& call, const DimVector& sizes, const Tensor& like) {
  if (call.has_preset_output()) return call.outputs[0];
  Tensor out = empty(sizes, TensorOptions(like.dtype()).device(like.device()));
  call.outputs.push_back(out);
  return out;
}

// mm: in self [m,k], mat2 [k,n].
void mm_kernel(OpCall& call) {
  const Tensor &a = call.in(0), &b = call.in(1);
  check_blas_dtype("mm", a.dtype());
  Tensor out = output_or_new(call, {a.size(0), b.size(1)}, a);
  batched_gemm(a.unsqueeze(0), b.unsqueeze(0), out.unsqueeze(0), 1, 0, "mm");
}

// bmm: in self [B,m,k], mat2 [B,k,n] (a batch stride of 0 broadcasts, as matmul makes).
void bmm_kernel(OpCall& call) {
  const Tensor &a = call.in(0), &b = call.in(1);
  check_blas_dtype("bmm", a.dtype());
  Tensor out = output_or_new(call, {a.size(0), a.size(1), b.size(2)}, a);
  batched_gemm(a, b, out, 1, 0, "bmm");
}

// addmm: in self (broadcasts to [m,n]), mat1 [m,k], mat2 [k,n]; attrs beta, alpha.
// beta == 0 ignores self (NaNs in it do not propagate), as in PyTorch. A bias vector
// with beta == 1 (linear) goes to cuBLASLt's fused bias epilogue where it applies.
void addmm_kernel(OpCall& call) {
  const Tensor &self = call.in(0), &a = call.in(1), &b = call.in(2);
  const AddmmArgs args = AddmmArgs::from(call);
  check_blas_dtype("addmm", a.dtype());
  Tensor out = output_or_new(call, {a.size(0), b.size(1)}, a);
  bool use_self = args.beta.to_double() != 0.0;
  if (use_self && args.beta.to_double() == 1.0 && self.dim() == 1 &&
      self.device() == out.device() && gemm_bias_lt(a, b, self, out, args.alpha, "addmm"))
    return;
  if (use_self && !out.is_same(self)) out.copy_(self);
  batched_gemm(a.unsqueeze(0), b.unsqueeze(0), out.unsqueeze(0), args.alpha,
               use_self ? args.beta : Scalar(0), "addmm");
}

// mv: in self [m,k], vec [k]: out [m, 1] = self @ vec [k, 1].
void mv_kernel(OpCall& call) {
  const Tensor &a = call.in(0), &x = call.in(1);
  check_blas_dtype("mv", a.dtype());
  Tensor out = output_or_new(call, {a.size(0)}, a);
  batched_gemm(a.unsqueeze(0), x.unsqueeze(1).unsqueeze(0), out.unsqueeze(1).unsqueeze(0), 1, 0, "mv");
}

}  // namespace

EMBER_REGISTER_KERNEL(mm, CUDA, mm_kernel);
EMBER_REGISTER_KERNEL(bmm, CUDA, bmm_kernel);
EMBER_REGISTER_KERNEL(addmm, CUDA, addmm_kernel);
EMBER_REGISTER_KERNEL(mv, CUDA, mv_kernel);

}  // namespace ember::cuda::blas
