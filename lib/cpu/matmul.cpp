// CPU kernels of the matrix products: mm, bmm, addmm, mv, dot.
//
// float32/float64 go to BLAS (blas.h). A strided operand is handed to BLAS as
// it lies, row-major or transposed (trans flag + leading dimension), and copied
// only when neither describes it. bfloat16 goes to oneDNN's matmul (BF16
// instructions, float32 accumulation: onednn_matmul.h) where it takes the
// operands; float16, and bfloat16 otherwise, are computed in float32 and
// rounded once at the end; integers run the reference loops of gemm_ref.h.

#include <algorithm>

#include "cpu/blas.h"
#include "kernels/blas_layout.h"
#include "kernels/dtype_dispatch.h"
#include "cpu/gemm_ref.h"
#include "cpu/onednn_matmul.h"
#include "cpu/parallel.h"
#include "dispatch/args/linalg.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/linalg.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"
#include "ops/make_view.h"

namespace ember::cpu {

namespace {

// A matrix [m, n] as a batch of one, [1, m, n], or a vector [n] as one column
// [1, n, 1]: views made directly (make_view), since a dispatched unsqueeze (view
// tracking included) cost more than a 4x4 product itself.
Tensor as_batch(const Tensor& t) {
  DimVector sizes{1, t.size(0), t.dim() == 2 ? t.size(1) : 1};
  DimVector strides{std::max<int64_t>(t.numel(), 1), t.stride(0), t.dim() == 2 ? t.stride(1) : 1};
  return make_view(t, std::move(sizes), std::move(strides), t.storage_offset());
}

// Per-matrix products below this many multiply-adds run one matrix per thread
// (BLAS single-threaded inside); above it, one matrix at a time, BLAS threaded.
constexpr int64_t kBatchParallelMacs = int64_t(1) << 21;
// A whole batch below this many multiply-adds runs on the calling thread: waking
// the other threads would cost more than it saves.
constexpr int64_t kParallelMacs = int64_t(1) << 17;

template <typename F>
void for_each_matrix(int64_t batch, int64_t macs_per_matrix, const F& f) {
  if (batch > 1 && macs_per_matrix < kBatchParallelMacs && batch * macs_per_matrix >= kParallelMacs &&
      max_threads() > 1) {
    parallel_for(0, batch, 1, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) f(i);
    });
  } else {
    for (int64_t i = 0; i < batch; ++i) f(i);
  }
}

// c[i] = alpha * a[i] @ b[i] + beta * c[i] for 3-d a, b, c with any strides
// (c writable with distinct elements), T float or double.
template <typename T>
void batched_gemm_blas(const Tensor& a_in, const Tensor& b_in, const Tensor& c, T alpha, T beta) {
  Tensor a = matrix_layout(a_in).ok ? a_in : a_in.contiguous();
  Tensor b = matrix_layout(b_in).ok ? b_in : b_in.contiguous();
  BlasLayout la = matrix_layout(a), lb = matrix_layout(b), lc = matrix_layout(c);
  bool direct = lc.ok && !lc.trans;
  Tensor out = c;
  if (!direct) {
    out = empty(c.sizes(), TensorOptions(c.dtype()));
    if (beta != T(0)) out.copy_(c);
    lc = matrix_layout(out);
  }
  int64_t batch = a.size(0), m = a.size(1), k = a.size(2), n = b.size(2);
  const T* ap = static_cast<const T*>(a.data_ptr());
  const T* bp = static_cast<const T*>(b.data_ptr());
  T* cp = static_cast<T*>(out.data_ptr());
  int64_t sa = a.stride(0), sb = b.stride(0), sc = out.stride(0);
  for_each_matrix(batch, m * n * k, [&](int64_t i) {
    blas::gemm(la.trans, lb.trans, m, n, k, alpha, ap + i * sa, la.ld, bp + i * sb, lb.ld, beta,
               cp + i * sc, lc.ld);
  });
  if (!direct) Tensor(c).copy_(out);
}

template <typename T>
void batched_gemm_ref(const Tensor& a, const Tensor& b, const Tensor& c, gemm_acc_t<T> alpha,
                      gemm_acc_t<T> beta) {
  int64_t batch = a.size(0), m = a.size(1), k = a.size(2), n = b.size(2);
  const T* ap = static_cast<const T*>(a.data_ptr());
  const T* bp = static_cast<const T*>(b.data_ptr());
  T* cp = static_cast<T*>(c.data_ptr());
  for_each_matrix(batch, m * n * k, [&](int64_t i) {
    gemm_ref<T>(m, n, k, alpha, {ap + i * a.stride(0), a.stride(1), a.stride(2)},
                {bp + i * b.stride(0), b.stride(1), b.stride(2)}, beta,
                {cp + i * c.stride(0), c.stride(1), c.stride(2)});
  });
}

// bfloat16 through oneDNN's matmul (BF16 instructions, float32 accumulation); false
// when it declines (onednn_matmul.h) and the float32 path below runs.
bool bf16_onednn(const Tensor& a, const Tensor& b, const Tensor& c, float alpha, float beta) {
  auto batch_of = [](const Tensor& t) {
    return onednn::MatrixBatch{t.size(0), t.size(1), t.size(2), {t.stride(0), t.stride(1), t.stride(2)}};
  };
  return onednn::matmul_bf16(batch_of(a), static_cast<const BFloat16*>(a.data_ptr()), batch_of(b),
                             static_cast<const BFloat16*>(b.data_ptr()), batch_of(c),
                             static_cast<BFloat16*>(c.data_ptr()), alpha, beta);
}

// c = alpha * a @ b + beta * c over a batch: a [B,m,k], b [B,k,n], c [B,m,n].
void batched_gemm(const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& alpha,
                  const Scalar& beta, const char* op) {
  switch (c.dtype()) {
    case kFloat32:
      return batched_gemm_blas<float>(a, b, c, alpha.to<float>(), beta.to<float>());
    case kFloat64:
      return batched_gemm_blas<double>(a, b, c, alpha.to_double(), beta.to_double());
    case kBFloat16:
      if (a.dtype() == kBFloat16 && b.dtype() == kBFloat16 &&
          bf16_onednn(a, b, c, alpha.to<float>(), beta.to<float>()))
        return;
      [[fallthrough]];
    case kFloat16: {
      Tensor c32 = c.to(kFloat32);
      batched_gemm_blas<float>(a.to(kFloat32), b.to(kFloat32), c32, alpha.to<float>(),
                               beta.to<float>());
      Tensor(c).copy_(c32);
      return;
    }
    default:
      EMBER_DISPATCH_INTEGRAL(c.dtype(), op, [&] {
        if constexpr (!std::is_same_v<scalar_t, bool>)
          batched_gemm_ref<scalar_t>(a, b, c, static_cast<uint64_t>(alpha.to_int()),
                                     static_cast<uint64_t>(beta.to_int()));
        else
          throw_unsupported_dtype(op, c.dtype());
      });
  }
}

Tensor output_or_new(OpCall& call, const DimVector& sizes, DType dtype) {
  if (call.has_preset_output()) return call.outputs[0];
  Tensor out = empty(sizes, TensorOptions(dtype));
  call.outputs.push_back(out);
  return out;
}

// mm: in self [m,k], mat2 [k,n].
void mm_kernel(OpCall& call) {
  const Tensor &a = call.in(0), &b = call.in(1);
  Tensor out = output_or_new(call, {a.size(0), b.size(1)}, a.dtype());
  batched_gemm(as_batch(a), as_batch(b), as_batch(out), 1, 0, "mm");
}

// bmm: in self [B,m,k], mat2 [B,k,n].
void bmm_kernel(OpCall& call) {
  const Tensor &a = call.in(0), &b = call.in(1);
  Tensor out = output_or_new(call, {a.size(0), a.size(1), b.size(2)}, a.dtype());
  batched_gemm(a, b, out, 1, 0, "bmm");
}

// addmm: in self (broadcasts to [m,n]), mat1 [m,k], mat2 [k,n]; attrs beta, alpha.
// beta == 0 ignores self (NaNs in it do not propagate), as in PyTorch.
void addmm_kernel(OpCall& call) {
  const Tensor &self = call.in(0), &a = call.in(1), &b = call.in(2);
  const AddmmArgs args = AddmmArgs::from(call);
  Tensor out = output_or_new(call, {a.size(0), b.size(1)}, a.dtype());
  bool use_self = args.beta.to_double() != 0.0;
  if (use_self && !out.is_same(self)) out.copy_(self);
  batched_gemm(as_batch(a), as_batch(b), as_batch(out), args.alpha, use_self ? args.beta : Scalar(0),
               "addmm");
}

template <typename T>
void gemv_blas(const Tensor& a_in, const Tensor& x_in, const Tensor& y) {
  Tensor a = as_batch(a_in);
  if (!matrix_layout(a).ok) a = a.contiguous();
  Tensor x = x_in.stride(0) > 0 || x_in.size(0) <= 1 ? x_in : x_in.contiguous();
  BlasLayout la = matrix_layout(a);
  int64_t m = a.size(1), k = a.size(2);
  int64_t incx = x.size(0) <= 1 ? 1 : x.stride(0);
  const T* ap = static_cast<const T*>(a.data_ptr());
  if (la.trans)  // A is the transpose of a row-major [k, m] matrix
    blas::gemv(true, k, m, T(1), ap, la.ld, static_cast<const T*>(x.data_ptr()), incx, T(0),
               static_cast<T*>(y.data_ptr()), 1);
  else
    blas::gemv(false, m, k, T(1), ap, la.ld, static_cast<const T*>(x.data_ptr()), incx, T(0),
               static_cast<T*>(y.data_ptr()), 1);
}

// mv: in self [m,k], vec [k].
void mv_kernel(OpCall& call) {
  const Tensor &a = call.in(0), &x = call.in(1);
  Tensor out = output_or_new(call, {a.size(0)}, a.dtype());
  // BLAS writes y with unit stride: go through a temporary if out is strided.
  Tensor y = out.is_contiguous() ? out : empty(out.sizes(), TensorOptions(out.dtype()));
  if (a.dtype() == kFloat32) gemv_blas<float>(a, x, y);
  else if (a.dtype() == kFloat64) gemv_blas<double>(a, x, y);
  else
    batched_gemm(as_batch(a), as_batch(x), as_batch(y), 1, 0, "mv");
  if (!y.is_same(out)) out.copy_(y);
}

template <typename T>
T dot_typed(int64_t n, const T* x, int64_t sx, const T* y, int64_t sy) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return blas::dot(n, x, sx, y, sy);
  } else {
    using Acc = gemm_acc_t<T>;
    Acc acc = 0;
    for (int64_t i = 0; i < n; ++i) acc += to_acc<Acc>(x[i * sx]) * to_acc<Acc>(y[i * sy]);
    return from_acc<T>(acc);
  }
}

// dot: in self [n], other [n]; out: a 0-dim tensor.
void dot_kernel(OpCall& call) {
  const Tensor &x = call.in(0), &y = call.in(1);
  Tensor out = output_or_new(call, {}, x.dtype());
  EMBER_DISPATCH_NUMERIC(x.dtype(), "dot", [&] {
    *static_cast<scalar_t*>(out.data_ptr()) =
        dot_typed(x.size(0), static_cast<const scalar_t*>(x.data_ptr()), x.stride(0),
                  static_cast<const scalar_t*>(y.data_ptr()), y.stride(0));
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(mm, CPU, mm_kernel);
EMBER_REGISTER_KERNEL(bmm, CPU, bmm_kernel);
EMBER_REGISTER_KERNEL(addmm, CPU, addmm_kernel);
EMBER_REGISTER_KERNEL(mv, CPU, mv_kernel);
EMBER_REGISTER_KERNEL(dot, CPU, dot_kernel);

}  // namespace ember::cpu
