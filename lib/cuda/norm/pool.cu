// CUDA kernels of 2-d pooling: max_pool2d (with and without indices), avg_pool2d,
// adaptive_avg_pool2d. One thread per output element (int64 indices, grid-stride),
// inputs made contiguous [N, C, H, W], windows as the CPU kernels (lib/cpu/pool.cpp,
// kernels/pool_window.h): a max propagates NaN (the last NaN of a window wins, windows
// read row by row), its index is the flat h * W + w position in the input plane.
// Floating dtypes (float32, float64, float16, bfloat16; the CPU also pools integers).
#include <cmath>

#include "kernels/dtype_dispatch.h"
#include "kernels/pool_window.h"
#include "ops/pool_shape.h"  // pooling_output_size
#include "cuda/launch.h"
#include "dispatch/args/linalg.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/linalg.h"
#include "ember/ops/factories.h"

namespace ember::cuda {

namespace {

// The output of a call (preset, or new and pushed) and a contiguous place to write it.
struct PoolOutput {
  Tensor out, dense;
  PoolOutput(OpCall& call, size_t i, const DimVector& sizes, DType dtype, Device device) {
    if (call.outputs.size() > i) {
      out = call.outputs[i];
    } else {
      out = empty(sizes, TensorOptions(dtype).device(device));
      call.outputs.push_back(out);
    }
    dense = out.is_contiguous() ? out : empty(sizes, TensorOptions(dtype).device(device));
  }
  void finish() {
    if (!dense.is_same(out)) out.copy_(dense);
  }
};

// The first of start, start + step, ... that is not negative.
__device__ inline int64_t first_inside(int64_t start, int64_t step) {
  return start >= 0 ? start : start + (-start + step - 1) / step * step;
}

// The taps [lo, hi) of a window start + t * step (t < taps) that lie in [0, size).
__device__ inline void inside_taps(int64_t start, int64_t step, int64_t size, int64_t taps, int64_t& lo,
                                   int64_t& hi) {
  lo = start >= 0 ? 0 : (-start + step - 1) / step;
  hi = size - start <= 0 ? 0 : (size - start - 1) / step + 1;
  if (hi > taps) hi = taps;
  if (lo > hi) lo = hi;
}

template <typename T>
__global__ void max_pool2d_kernel(const T* x, T* y, int64_t* indices, int64_t total, int64_t H, int64_t W,
                                  int64_t OH, int64_t OW, Window2d w) {
  using Acc = opmath_t<T>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t ow = i % OW, oh = (i / OW) % OH, plane = i / (OW * OH);
    const T* in = x + plane * H * W;
    const int64_t hs = oh * w.sh - w.ph, ws = ow * w.sw - w.pw;
    Acc best = -INFINITY;
    int64_t best_i = first_inside(hs, w.dh) * W + first_inside(ws, w.dw);
    int64_t i0, i1, j0, j1;
    inside_taps(hs, w.dh, H, w.kh, i0, i1);
    inside_taps(ws, w.dw, W, w.kw, j0, j1);
    for (int64_t a = i0; a < i1; ++a) {
      const int64_t ih = hs + a * w.dh;
      for (int64_t b = j0; b < j1; ++b) {
        const int64_t pos = ih * W + ws + b * w.dw;
        const Acc v = convert<Acc>(in[pos]);
        if (v > best || isnan(v)) {
          best = v;
          best_i = pos;
        }
      }
    }
    y[i] = convert<T>(best);
    if (indices) indices[i] = best_i;
  }
}

// max_pool2d / max_pool2d_with_indices (Args: MaxPool2dArgs, MaxPool2dWithIndicesArgs):
// attrs kernel, stride, padding, dilation, ceil_mode.
template <class Args>
void max_pool2d_common(OpCall& call, bool with_indices) {
  const Tensor x = call.in(0).contiguous();
  const Args a = Args::from(call);
  const Window2d w = window_from(a);
  const int64_t H = x.size(2), W = x.size(3);
  const DimVector sizes{x.size(0), x.size(1), pooling_output_size(H, w.kh, w.ph, w.sh, w.dh, a.ceil_mode),
                        pooling_output_size(W, w.kw, w.pw, w.sw, w.dw, a.ceil_mode)};
  PoolOutput out(call, 0, sizes, x.dtype(), x.device());
  PoolOutput idx = with_indices ? PoolOutput(call, 1, sizes, kInt64, x.device()) : out;
  const int64_t total = out.out.numel();
  if (total > 0) {
    LaunchContext ctx(x);
    EMBER_DISPATCH_FLOATING(x.dtype(), call.name(), [&] {
      max_pool2d_kernel<scalar_t><<<blocks_for(total), kBlockThreads, 0, ctx.stream>>>(
          static_cast<const scalar_t*>(x.data_ptr()), static_cast<scalar_t*>(out.dense.data_ptr()),
          with_indices ? static_cast<int64_t*>(idx.dense.data_ptr()) : nullptr, total, H, W, sizes[2], sizes[3], w);
      EMBER_CUDA_CHECK_LAUNCH();
    });
  }
  out.finish();
  if (with_indices) idx.finish();
}

void max_pool2d_cuda(OpCall& call) { max_pool2d_common<MaxPool2dArgs>(call, false); }
void max_pool2d_with_indices_cuda(OpCall& call) { max_pool2d_common<MaxPool2dWithIndicesArgs>(call, true); }

template <typename T>
__global__ void avg_pool2d_kernel(const T* x, T* y, int64_t total, int64_t H, int64_t W, int64_t OH, int64_t OW,
                                  Window2d w, bool count_include_pad, int64_t divisor_override) {
  using Acc = opmath_t<T>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t ow = i % OW, oh = (i / OW) % OH, plane = i / (OW * OH);
    const T* in = x + plane * H * W;
    const AvgWindow a = avg_window(w, oh, ow, H, W, count_include_pad, divisor_override);
    Acc sum = 0;
    for (int64_t ih = a.h0; ih < a.h1; ++ih)
      for (int64_t iw = a.w0; iw < a.w1; ++iw) sum += convert<Acc>(in[ih * W + iw]);
    y[i] = a.empty() ? T(0) : convert<T>(sum / static_cast<Acc>(a.divisor));
  }
}

// avg_pool2d: attrs kernel, stride, padding, ceil_mode, count_include_pad, divisor_override?.
void avg_pool2d_cuda(OpCall& call) {
  const Tensor x = call.in(0).contiguous();
  const AvgPool2dArgs a = AvgPool2dArgs::from(call);
  const Window2d w = window_from(a);
  const int64_t H = x.size(2), W = x.size(3);
  const DimVector sizes{x.size(0), x.size(1), pooling_output_size(H, w.kh, w.ph, w.sh, 1, a.ceil_mode),
                        pooling_output_size(W, w.kw, w.pw, w.sw, 1, a.ceil_mode)};
  PoolOutput out(call, 0, sizes, x.dtype(), x.device());
  const int64_t total = out.out.numel();
  if (total > 0) {
    LaunchContext ctx(x);
    EMBER_DISPATCH_FLOATING(x.dtype(), "avg_pool2d", [&] {
      avg_pool2d_kernel<scalar_t><<<blocks_for(total), kBlockThreads, 0, ctx.stream>>>(
          static_cast<const scalar_t*>(x.data_ptr()), static_cast<scalar_t*>(out.dense.data_ptr()), total, H, W,
          sizes[2], sizes[3], w, a.count_include_pad, a.divisor_override.value_or(0));
      EMBER_CUDA_CHECK_LAUNCH();
    });
  }
  out.finish();
}

template <typename T>
__global__ void adaptive_avg_pool2d_kernel(const T* x, T* y, int64_t total, int64_t H, int64_t W, int64_t OH,
                                           int64_t OW) {
  using Acc = opmath_t<T>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t ow = i % OW, oh = (i / OW) % OH, plane = i / (OW * OH);
    const T* in = x + plane * H * W;
    const int64_t h0 = adaptive_start(oh, OH, H), h1 = adaptive_end(oh, OH, H);
    const int64_t w0 = adaptive_start(ow, OW, W), w1 = adaptive_end(ow, OW, W);
    Acc sum = 0;
    for (int64_t ih = h0; ih < h1; ++ih)
      for (int64_t iw = w0; iw < w1; ++iw) sum += convert<Acc>(in[ih * W + iw]);
    y[i] = convert<T>(sum / static_cast<Acc>((h1 - h0) * (w1 - w0)));
  }
}

// adaptive_avg_pool2d: attr output_size (pair, resolved).
void adaptive_avg_pool2d_cuda(OpCall& call) {
  const Tensor x = call.in(0).contiguous();
  const AdaptiveAvgPool2dArgs a = AdaptiveAvgPool2dArgs::from(call);
  const DimVector sizes{x.size(0), x.size(1), a.output_size[0], a.output_size[1]};
  PoolOutput out(call, 0, sizes, x.dtype(), x.device());
  const int64_t total = out.out.numel();
  if (total > 0) {
    LaunchContext ctx(x);
    EMBER_DISPATCH_FLOATING(x.dtype(), "adaptive_avg_pool2d", [&] {
      adaptive_avg_pool2d_kernel<scalar_t><<<blocks_for(total), kBlockThreads, 0, ctx.stream>>>(
          static_cast<const scalar_t*>(x.data_ptr()), static_cast<scalar_t*>(out.dense.data_ptr()), total,
          x.size(2), x.size(3), a.output_size[0], a.output_size[1]);
      EMBER_CUDA_CHECK_LAUNCH();
    });
  }
  out.finish();
}

}  // namespace

EMBER_REGISTER_KERNEL(max_pool2d, CUDA, max_pool2d_cuda);
EMBER_REGISTER_KERNEL(max_pool2d_with_indices, CUDA, max_pool2d_with_indices_cuda);
EMBER_REGISTER_KERNEL(avg_pool2d, CUDA, avg_pool2d_cuda);
EMBER_REGISTER_KERNEL(adaptive_avg_pool2d, CUDA, adaptive_avg_pool2d_cuda);

}  // namespace ember::cuda
