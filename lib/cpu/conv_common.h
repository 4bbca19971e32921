// Shared pieces of the convolution kernels (conv.cpp: conv2d, conv_transpose2d,
// conv2d_backward_input; conv_backward.cpp: conv2d_backward_weight): products
// through BLAS, the task loop that spreads images over the threads, and the
// dtype handling around a kernel body.
#pragma once

#include "cpu/blas.h"
#include "kernels/dtype_dispatch.h"
#include "cpu/gemm_ref.h"
#include "cpu/im2col.h"
#include "dispatch/dispatcher.h"
#include "ember/ops/factories.h"

namespace ember::cpu::conv {

// A band of columns this large stays in L2 while BLAS reads it (1 MB measured
// best of 0.25..8 MB on [8,64,56,56] -> 64 3x3, single-threaded).
inline constexpr int64_t kColBufferBytes = int64_t(1) << 20;
// Per-task products below this many multiply-adds are always spread over tasks.
inline constexpr int64_t kSmallTaskMacs = int64_t(1) << 22;
// Below this many multiply-adds in all, everything runs on the calling thread.
inline constexpr int64_t kParallelMacs = int64_t(1) << 17;

// C[m,n] (+)= op(A) @ op(B), row-major; op(A) = A [m,k] or, with trans_a, A
// stored [k,m]; op(B) = B [k,n] or, with trans_b, B stored [n,k].
template <typename T>
void gemm_any(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
              const T* b, int64_t ldb, bool accumulate, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    blas::gemm(trans_a, trans_b, m, n, k, T(1), a, lda, b, ldb, accumulate ? T(1) : T(0), c, ldc);
  } else {
    StridedMatrix<const T> am{a, trans_a ? 1 : lda, trans_a ? lda : 1};
    StridedMatrix<const T> bm{b, trans_b ? 1 : ldb, trans_b ? ldb : 1};
    gemm_ref<T>(m, n, k, 1, am, bm, accumulate ? 1 : 0, {c, ldc, 1});
  }
}

struct ConvArgs {
  int64_t batch, groups;
  int64_t in_per_group, out_per_group;  // channels of x and y per group
  ConvGeometry g;                        // per group: image = conv2d's input side
};

// Rows of the band so that a column buffer of rows x cols fits kColBufferBytes.
inline int64_t band_rows(int64_t col_rows, int64_t row_len, int64_t total_rows, size_t itemsize) {
  int64_t per_row = std::max<int64_t>(1, col_rows * row_len * static_cast<int64_t>(itemsize));
  return std::clamp<int64_t>(kColBufferBytes / per_row, 1, std::max<int64_t>(total_rows, 1));
}

// Runs task(i, buffer) for i in [0, tasks): spread over the threads (each with
// its own buffer, BLAS single-threaded inside) when there are enough tasks,
// else one after another with im2col and BLAS threaded.
template <typename T, typename F>
void for_each_task(int64_t tasks, int64_t macs_per_task, int64_t buffer_len, const F& task) {
  int threads = max_threads();
  bool spread = threads > 1 && tasks >= threads && tasks * macs_per_task >= kParallelMacs &&
                (tasks % threads == 0 || tasks >= 4 * threads || macs_per_task < kSmallTaskMacs);
  int64_t nbuf = spread ? threads : 1;
  buffer_len = std::max<int64_t>(buffer_len, 1);
  Tensor buffers = empty(IntList{nbuf, buffer_len}, TensorOptions(dtype_of<T>::value));
  T* base = static_cast<T*>(buffers.data_ptr());
  if (!spread) {
    for (int64_t i = 0; i < tasks; ++i) task(i, base);
    return;
  }
  run_parallel(tasks, threads, [&](int64_t i, int slot) { task(i, base + slot * buffer_len); });
}

// y = bias (or 0) over each of the planes.
template <typename T>
void fill_bias(T* y, const T* bias, int64_t channels, int64_t plane) {
  for (int64_t c = 0; c < channels; ++c) std::fill(y + c * plane, y + (c + 1) * plane, bias ? bias[c] : T(0));
}

template <typename T>
struct ConvPointers {
  const T* x;
  const T* w;
  const T* bias;  // nullptr without bias
  T* y;
  ConvPointers(const Tensor& xt, const Tensor& wt, const Tensor& bt, const Tensor& yt)
      : x(static_cast<const T*>(xt.data_ptr())), w(static_cast<const T*>(wt.data_ptr())),
        bias(bt.defined() ? static_cast<const T*>(bt.data_ptr()) : nullptr),
        y(static_cast<T*>(yt.data_ptr())) {}
};

inline ConvGeometry geometry(int64_t channels, int64_t h, int64_t w, const Tensor& weight,
                             const DimVector& stride, const DimVector& padding,
                             const DimVector& dilation, int64_t out_h, int64_t out_w) {
  return {channels, h, w, weight.size(2), weight.size(3), stride[0], stride[1], padding[0],
          padding[1], dilation[0], dilation[1], out_h, out_w};
}

// Runs body<T>(x, w, bias, y) on contiguous operands (inputs 0, 1 and the
// optional 2 of the call; y its output), float16/bfloat16 in float32.
template <typename Body>
void run_conv(OpCall& call, const DimVector& out_sizes, const char* op, const Body& body) {
  const Tensor& input = call.in(0);
  DType dt = input.dtype();
  Tensor out;
  if (call.has_preset_output()) {
    out = call.outputs[0];
  } else {
    out = empty(out_sizes, TensorOptions(dt));
    call.outputs.push_back(out);
  }
  if (out.numel() == 0) return;
  DType compute = dt == kFloat16 || dt == kBFloat16 ? kFloat32 : dt;
  auto prep = [&](const Tensor& t) { return t.defined() ? t.to(compute).contiguous() : t; };
  Tensor x = prep(input), w = prep(call.in(1)),
         b = prep(call.inputs.size() > 2 ? call.in(2) : Tensor());
  Tensor y = compute == dt && out.is_contiguous() ? out : empty(out_sizes, TensorOptions(compute));
  EMBER_DISPATCH_NUMERIC(compute, op, [&] {
    if constexpr (!is_reduced_float_v<scalar_t>) body(scalar_t{}, x, w, b, y);
  });
  if (!y.is_same(out)) out.copy_(y);
}

}  // namespace ember::cpu::conv
