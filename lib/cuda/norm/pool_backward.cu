// CUDA kernels of the pools' backward primitives (lib/cpu/pool_backward.cpp):
// the gradient of the input planes [..., H, W] from grad_output [..., OH, OW].
// avg and adaptive avg gather: one thread per input element sums, in a fixed
// order, the outputs whose windows hold it (deterministic). max scatters each
// output's gradient to the position its index names with atomicAdd into a float
// (double for float64) accumulator, as the CPU accumulates; the order of the
// additions into one position (overlapping windows) may vary from run to run. An
// index outside the plane is reported (IndexError at the next synchronization).
// float16/bfloat16 accumulate in float and round once at the end.
#include "kernels/dtype_dispatch.h"
#include "kernels/pool_window.h"
#include "cuda/device_error.h"
#include "cuda/launch.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/factories.h"

namespace ember::cuda {

namespace {

// The plane sizes of a backward call: gradient planes OH x OW into input planes
// H x W (the Args' input_size).
struct Planes {
  int64_t count, H, W, OH, OW;
};

Planes planes_of(const Tensor& g, const DimVector& in) {
  const int64_t nd = static_cast<int64_t>(in.size());
  Planes p{1, in[nd - 2], in[nd - 1], g.size(-2), g.size(-1)};
  for (int64_t d = 0; d < nd - 2; ++d) p.count *= in[d];
  return p;
}

template <typename T>
__global__ void max_pool2d_backward_kernel(const T* g, const int64_t* indices, opmath_t<T>* acc, int64_t total,
                                           int64_t out_plane, int64_t in_plane, DeviceErrorReporter err) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t idx = indices[i];
    if (idx < 0 || idx >= in_plane) {
      err.report(DeviceErrorKind::IndexOutOfRange, idx, in_plane);
      continue;
    }
    atomicAdd(acc + (i / out_plane) * in_plane + idx, convert<opmath_t<T>>(g[i]));
  }
}

// max_pool2d_backward: in grad_output, indices (int64, plane positions); attr input_size.
void max_pool2d_backward_cuda(OpCall& call) {
  const Tensor g = call.in(0).contiguous(), idx = call.in(1).contiguous();
  const MaxPool2dBackwardArgs a = MaxPool2dBackwardArgs::from(call);
  const Planes p = planes_of(g, a.input_size);
  const DType acc_dtype = g.dtype() == kFloat64 ? kFloat64 : kFloat32;
  Tensor acc =
      zeros(IntList(a.input_size.begin(), a.input_size.end()), TensorOptions(acc_dtype).device(g.device()));
  const int64_t total = g.numel();
  if (acc.numel() > 0 && total > 0) {
    LaunchContext ctx(g);
    const DeviceErrorReporter err = device_error_reporter(g.device().index, opid::max_pool2d_backward);
    EMBER_DISPATCH_FLOATING(g.dtype(), "max_pool2d_backward", [&] {
      max_pool2d_backward_kernel<scalar_t><<<blocks_for(total), kBlockThreads, 0, ctx.stream>>>(
          static_cast<const scalar_t*>(g.data_ptr()), static_cast<const int64_t*>(idx.data_ptr()),
          static_cast<opmath_t<scalar_t>*>(acc.data_ptr()), total, p.OH * p.OW, p.H * p.W, err);
      EMBER_CUDA_CHECK_LAUNCH();
    });
  }
  call.outputs.push_back(acc.dtype() == g.dtype() ? acc : acc.to(g.dtype()));
}

// The outputs o (of `outs`, every `stride` from -pad) whose window of `kernel` holds
// input i: [lo, hi). A window clipped by ceil_mode still holds every input it reaches.
__device__ inline void covering_outputs(int64_t i, int64_t kernel, int64_t stride, int64_t pad, int64_t outs,
                                        int64_t& lo, int64_t& hi) {
  const int64_t a = i + pad - kernel + 1;  // o * stride >= a
  lo = a <= 0 ? 0 : (a + stride - 1) / stride;
  hi = (i + pad) / stride + 1;  // o * stride <= i + pad
  if (hi > outs) hi = outs;
}

template <typename T>
__global__ void avg_pool2d_backward_kernel(const T* g, T* dx, int64_t total, int64_t H, int64_t W, int64_t OH,
                                           int64_t OW, Window2d w, bool count_include_pad,
                                           int64_t divisor_override) {
  using Acc = opmath_t<T>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t iw = i % W, ih = (i / W) % H, plane = i / (W * H);
    const T* gp = g + plane * OH * OW;
    int64_t oh0, oh1, ow0, ow1;
    covering_outputs(ih, w.kh, w.sh, w.ph, OH, oh0, oh1);
    covering_outputs(iw, w.kw, w.sw, w.pw, OW, ow0, ow1);
    Acc sum = 0;
    for (int64_t oh = oh0; oh < oh1; ++oh)
      for (int64_t ow = ow0; ow < ow1; ++ow) {
        const AvgWindow a = avg_window(w, oh, ow, H, W, count_include_pad, divisor_override);
        if (a.empty() || ih < a.h0 || ih >= a.h1 || iw < a.w0 || iw >= a.w1) continue;
        sum += convert<Acc>(gp[oh * OW + ow]) / static_cast<Acc>(a.divisor);
      }
    dx[i] = convert<T>(sum);
  }
}

// Allocates the gradient of args.input_size in grad_output's dtype and runs launch(g, dx, p).
template <class Args, typename Launch>
void gather_to_input(OpCall& call, const Args& args, const Launch& launch) {
  const Tensor g = call.in(0).contiguous();
  const Planes p = planes_of(g, args.input_size);
  Tensor dx =
      empty(IntList(args.input_size.begin(), args.input_size.end()), TensorOptions(g.dtype()).device(g.device()));
  if (dx.numel() > 0) {
    if (g.numel() == 0) {
      dx.zero_();
    } else {
      LaunchContext ctx(g);
      launch(g, dx, p, ctx.stream);
    }
  }
  call.outputs.push_back(dx);
}

// avg_pool2d_backward: in grad_output; attrs input_size, kernel, stride, padding,
// ceil_mode, count_include_pad, divisor_override?.
void avg_pool2d_backward_cuda(OpCall& call) {
  const AvgPool2dBackwardArgs a = AvgPool2dBackwardArgs::from(call);
  const Window2d w = window_from(a);
  gather_to_input(call, a, [&](const Tensor& g, const Tensor& dx, const Planes& p, cudaStream_t stream) {
    const int64_t total = dx.numel();
    EMBER_DISPATCH_FLOATING(g.dtype(), "avg_pool2d_backward", [&] {
      avg_pool2d_backward_kernel<scalar_t><<<blocks_for(total), kBlockThreads, 0, stream>>>(
          static_cast<const scalar_t*>(g.data_ptr()), static_cast<scalar_t*>(dx.data_ptr()), total, p.H, p.W, p.OH,
          p.OW, w, a.count_include_pad, a.divisor_override.value_or(0));
      EMBER_CUDA_CHECK_LAUNCH();
    });
  });
}

template <typename T>
__global__ void adaptive_avg_pool2d_backward_kernel(const T* g, T* dx, int64_t total, int64_t H, int64_t W,
                                                    int64_t OH, int64_t OW) {
  using Acc = opmath_t<T>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t iw = i % W, ih = (i / W) % H, plane = i / (W * H);
    const T* gp = g + plane * OH * OW;
    // The outputs whose [start, end) holds ih: exactly [floor(ih OH / H), ceil((ih + 1) OH / H)).
    const int64_t oh0 = adaptive_start(ih, H, OH), oh1 = adaptive_end(ih, H, OH);
    const int64_t ow0 = adaptive_start(iw, W, OW), ow1 = adaptive_end(iw, W, OW);
    Acc sum = 0;
    for (int64_t oh = oh0; oh < oh1 && oh < OH; ++oh) {
      const int64_t h0 = adaptive_start(oh, OH, H), h1 = adaptive_end(oh, OH, H);
      if (ih < h0 || ih >= h1) continue;
      for (int64_t ow = ow0; ow < ow1 && ow < OW; ++ow) {
        const int64_t w0 = adaptive_start(ow, OW, W), w1 = adaptive_end(ow, OW, W);
        if (iw < w0 || iw >= w1) continue;
        sum += convert<Acc>(gp[oh * OW + ow]) / static_cast<Acc>((h1 - h0) * (w1 - w0));
      }
    }
    dx[i] = convert<T>(sum);
  }
}

// adaptive_avg_pool2d_backward: in grad_output; attr input_size.
void adaptive_avg_pool2d_backward_cuda(OpCall& call) {
  const AdaptiveAvgPool2dBackwardArgs a = AdaptiveAvgPool2dBackwardArgs::from(call);
  gather_to_input(call, a, [&](const Tensor& g, const Tensor& dx, const Planes& p, cudaStream_t stream) {
    const int64_t total = dx.numel();
    EMBER_DISPATCH_FLOATING(g.dtype(), "adaptive_avg_pool2d_backward", [&] {
      adaptive_avg_pool2d_backward_kernel<scalar_t><<<blocks_for(total), kBlockThreads, 0, stream>>>(
          static_cast<const scalar_t*>(g.data_ptr()), static_cast<scalar_t*>(dx.data_ptr()), total, p.H, p.W, p.OH,
          p.OW);
      EMBER_CUDA_CHECK_LAUNCH();
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(max_pool2d_backward, CUDA, max_pool2d_backward_cuda);
EMBER_REGISTER_KERNEL(avg_pool2d_backward, CUDA, avg_pool2d_backward_cuda);
EMBER_REGISTER_KERNEL(adaptive_avg_pool2d_backward, CUDA, adaptive_avg_pool2d_backward_cuda);

}  // namespace ember::cuda
