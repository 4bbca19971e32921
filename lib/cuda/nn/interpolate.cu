// interpolate and its backward on CUDA: nearest and (bi/tri)linear resampling of
// [N, C, *spatial] with 1 to 3 spatial dims, the CPU kernels' results
// (lib/cpu/interpolate.cpp, interpolate_backward.cpp). Every source index and
// weight comes from kernels/interpolate_coords.h, the functions the CPU's tables are
// built with, and the sums run in the CPU's order, so both backends agree to the
// last bit (up to nvcc's fused multiply-adds).
//
// The backward gathers instead of scattering: one thread per grad_input element
// finds, along each dim, the output indices that read it (the source index is
// non-decreasing in the output index, so they form one range, found by binary
// search), and adds their contributions in the CPU's order. No atomics, the same
// sums on every run.
#include "kernels/interpolate_coords.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/interpolate_index.h"
#include "cuda/launch.h"
#include "dispatch/args/nn.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/factories.h"

namespace ember::cuda {
namespace {

constexpr int kMaxSpatial = 3;

// The resampling of one call: sizes, strides and scales per spatial dim.
struct Resample {
  int k = 0;                      // spatial dims, 1 to 3
  int64_t C = 0;                  // channels
  int64_t in[kMaxSpatial] = {}, out[kMaxSpatial] = {};
  int64_t stride_n = 0, stride_c = 0, stride[kMaxSpatial] = {};  // of the gathered tensor
  bool align_corners = false, shortcuts = false;
  float nearest_scale[kMaxSpatial] = {};
  double linear_scale[kMaxSpatial] = {};  // an opmath value (float or double), stored exactly
};

// Args: InterpolateArgs or InterpolateBackwardArgs (align_corners, scales).
template <class Args>
Resample make_resample(const Args& a, const DimVector& in_sizes, const DimVector& out_sizes, bool nearest,
                       bool linear_in_double) {
  Resample r;
  r.k = static_cast<int>(in_sizes.size()) - 2;
  r.C = in_sizes[1];
  r.align_corners = a.align_corners;
  r.shortcuts = r.k == 2;
  for (int d = 0; d < r.k; ++d) {
    r.in[d] = in_sizes[2 + d];
    r.out[d] = out_sizes[2 + d];
    if (nearest) {
      r.nearest_scale[d] = compute_scale<float>(r.in[d], r.out[d], a.scales[d]);
    } else {
      r.linear_scale[d] = linear_in_double
                              ? linear_scale<double>(r.in[d], r.out[d], r.align_corners, a.scales[d])
                              : linear_scale<float>(r.in[d], r.out[d], r.align_corners, a.scales[d]);
    }
  }
  return r;
}

// Splits a row-major index over [N, C, *sizes] into its spatial indices; returns n * C + c.
__device__ __forceinline__ int64_t split_index(int64_t i, const int64_t* sizes, int k, int64_t* pos) {
  for (int d = k - 1; d >= 0; --d) {
    pos[d] = i % sizes[d];
    i /= sizes[d];
  }
  return i;
}

template <typename T>
__global__ void nearest_kernel(const T* x, T* y, int64_t total, Resample r) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    int64_t o[kMaxSpatial];
    const int64_t plane = split_index(i, r.out, r.k, o);
    int64_t offset = (plane / r.C) * r.stride_n + (plane % r.C) * r.stride_c;
    for (int d = 0; d < r.k; ++d) offset += nearest_source(o[d], r.in[d], r.out[d], r.nearest_scale[d], r.shortcuts) * r.stride[d];
    y[i] = x[offset];
  }
}

template <typename T>
__global__ void linear_kernel(const T* x, T* y, int64_t total, Resample r) {
  using acc_t = opmath_t<T>;
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    int64_t o[kMaxSpatial];
    const int64_t plane = split_index(i, r.out, r.k, o);
    // The 2^(k-1) corners of the outer dims, in PyTorch's nesting order (as the CPU).
    int64_t corner_offset[4] = {(plane / r.C) * r.stride_n + (plane % r.C) * r.stride_c};
    acc_t corner_weight[4] = {acc_t(1)};
    int corners = 1;
    for (int d = 0; d + 1 < r.k; ++d) {
      const LinearEntry<acc_t> t =
          linear_source<acc_t>(o[d], r.in[d], r.out[d], r.align_corners, static_cast<acc_t>(r.linear_scale[d]));
      for (int q = corners - 1; q >= 0; --q) {
        corner_offset[2 * q + 1] = corner_offset[q] + t.i1 * r.stride[d];
        corner_weight[2 * q + 1] = corner_weight[q] * t.w1;
        corner_offset[2 * q] = corner_offset[q] + t.i0 * r.stride[d];
        corner_weight[2 * q] = corner_weight[q] * t.w0;
      }
      corners *= 2;
    }
    const int l = r.k - 1;
    const LinearEntry<acc_t> last =
        linear_source<acc_t>(o[l], r.in[l], r.out[l], r.align_corners, static_cast<acc_t>(r.linear_scale[l]));
    const int64_t a = last.i0 * r.stride[l], b = last.i1 * r.stride[l];
    acc_t v = 0;
    for (int q = 0; q < corners; ++q) {
      const T* p = x + corner_offset[q];
      v += corner_weight[q] * (last.w0 * static_cast<acc_t>(p[a]) + last.w1 * static_cast<acc_t>(p[b]));
    }
    y[i] = convert<T>(v);
  }
}

// ---- backward ------------------------------------------------------------------

// The first output index o in [0, out) whose source index (the lower neighbour,
// for linear) is >= target: the source index is non-decreasing in o.
template <typename Acc>
__device__ int64_t first_source_at_least(int64_t target, int d, const Resample& r, bool nearest) {
  int64_t lo = 0, hi = r.out[d];
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    const int64_t s = nearest ? nearest_source(mid, r.in[d], r.out[d], r.nearest_scale[d], r.shortcuts)
                              : linear_source<Acc>(mid, r.in[d], r.out[d], r.align_corners,
                                                   static_cast<Acc>(r.linear_scale[d])).i0;
    if (s < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Adds the contributions to grad_input element j of dims L.. (grad_output block g
// at offset `offset`), weight w of the dims before L, in the CPU's order
// (lib/cpu/separable_scatter.h): output indices ascending, for linear the lower
// neighbour's weight before the upper's; acc += (w * w_L) * g at the last dim.
template <int L, typename T, typename Acc>
__device__ void gather_contributions(const T* g, int64_t offset, const int64_t* j, const int64_t* g_stride,
                                     const Resample& r, bool nearest, Acc w, Acc& acc) {
  const int64_t jl = j[L];
  const int64_t o_begin = first_source_at_least<Acc>(nearest ? jl : jl - 1, L, r, nearest);
  const int64_t o_end = first_source_at_least<Acc>(jl + 1, L, r, nearest);
  auto add = [&](int64_t o, Acc wc) {
    const Acc wl = L == 0 ? wc : w * wc;
    const int64_t off = offset + o * g_stride[L];
    if (L + 1 == r.k) {
      acc += wl * static_cast<Acc>(g[off]);
    } else if constexpr (L + 1 < kMaxSpatial) {
      gather_contributions<L + 1, T, Acc>(g, off, j, g_stride, r, nearest, wl, acc);
    }
  };
  for (int64_t o = o_begin; o < o_end; ++o) {
    if (nearest) {
      add(o, Acc(1));
    } else {
      const LinearEntry<Acc> e =
          linear_source<Acc>(o, r.in[L], r.out[L], r.align_corners, static_cast<Acc>(r.linear_scale[L]));
      if (e.i0 == jl) add(o, e.w0);
      if (e.i1 == jl) add(o, e.w1);
    }
  }
}

// One thread per grad_input element ([N, C, *in], contiguous); grad_output contiguous.
template <typename T>
__global__ void backward_kernel(const T* g, T* grad_in, int64_t total, Resample r, bool nearest) {
  using acc_t = opmath_t<T>;
  int64_t g_stride[kMaxSpatial];
  int64_t plane_size = 1;
  for (int d = r.k - 1; d >= 0; --d) {
    g_stride[d] = plane_size;
    plane_size *= r.out[d];
  }
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    int64_t j[kMaxSpatial];
    const int64_t plane = split_index(i, r.in, r.k, j);
    acc_t acc = 0;
    gather_contributions<0, T, acc_t>(g, plane * plane_size, j, g_stride, r, nearest, acc_t(1), acc);
    grad_in[i] = convert<T>(acc);
  }
}

void interpolate_kernel(OpCall& c) {
  const Tensor& x = c.in(0);
  const InterpolateArgs a = InterpolateArgs::from(c);
  const bool nearest = a.mode == "nearest";
  DimVector out_sizes{x.size(0), x.size(1)};
  for (int64_t s : a.output_size) out_sizes.push_back(s);
  Tensor out = empty(out_sizes, TensorOptions(x.dtype()).device(x.device()));
  c.outputs.push_back(out);
  const int64_t total = out.numel();
  if (total == 0) return;
  Resample r = make_resample(a, x.sizes(), out_sizes, nearest, x.dtype() == kFloat64);
  r.stride_n = x.stride(0);
  r.stride_c = x.stride(1);
  for (int d = 0; d < r.k; ++d) r.stride[d] = x.stride(2 + d);
  LaunchContext ctx(x);
  if (nearest && x.dtype() == kUInt8) {
    nearest_kernel<uint8_t><<<blocks_for(total), kBlockThreads, 0, ctx.stream>>>(
        static_cast<const uint8_t*>(x.data_ptr()), static_cast<uint8_t*>(out.data_ptr()), total, r);
    EMBER_CUDA_CHECK_LAUNCH();
    return;
  }
  EMBER_DISPATCH_FLOATING(x.dtype(), "interpolate", [&] {
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    scalar_t* yp = static_cast<scalar_t*>(out.data_ptr());
    if (nearest)
      nearest_kernel<scalar_t><<<blocks_for(total), kBlockThreads, 0, ctx.stream>>>(xp, yp, total, r);
    else
      linear_kernel<scalar_t><<<blocks_for(total), kBlockThreads, 0, ctx.stream>>>(xp, yp, total, r);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void interpolate_backward_kernel(OpCall& c) {
  const Tensor g = c.in(0).contiguous();
  const InterpolateBackwardArgs a = InterpolateBackwardArgs::from(c);
  const bool nearest = a.mode == "nearest";
  Tensor grad_in =
      zeros(IntList(a.input_size.begin(), a.input_size.end()), TensorOptions(g.dtype()).device(g.device()));
  c.outputs.push_back(grad_in);
  const int64_t total = grad_in.numel();
  if (total == 0 || g.numel() == 0) return;
  const Resample r = make_resample(a, a.input_size, g.sizes(), nearest, g.dtype() == kFloat64);
  LaunchContext ctx(g);
  EMBER_DISPATCH_FLOATING(g.dtype(), "interpolate_backward", [&] {
    backward_kernel<scalar_t><<<blocks_for(total), kBlockThreads, 0, ctx.stream>>>(
        static_cast<const scalar_t*>(g.data_ptr()), static_cast<scalar_t*>(grad_in.data_ptr()), total, r, nearest);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

EMBER_REGISTER_KERNEL(interpolate, CUDA, interpolate_kernel);
EMBER_REGISTER_KERNEL(interpolate_backward, CUDA, interpolate_backward_kernel);

}  // namespace
}  // namespace ember::cuda
