// pad and its backward on CUDA (constant, reflect, replicate, circular), with the
// CPU kernels' results (lib/cpu/pad.cpp, pad_backward.cpp): every padded dim maps
// an output index to its source index with kernels/pad_index.h, the CPU's rule.
// The forward moves raw bits of the element's size (any dtype); the backward
// (reflect, replicate, circular: constant is a pad of the gradient, lib/ops)
// gathers, one thread per grad_input element, the output positions that copied
// it, in the CPU's order (output indices ascending, first padded dim slowest), so
// the sums are the CPU's. Finding them scans each padded dim's output indices:
// O(sum of the padded output sizes) per element, simple and race free.
#include <cstring>

#include "kernels/pad_index.h"
#include "kernels/dtype_dispatch.h"
#include "cuda/launch.h"
#include "dispatch/args/nn.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/factories.h"

namespace ember::cuda {
namespace {

constexpr int kMaxPadDims = 8;

// The k trailing (padded) dims of a contiguous input and its output; the dims
// before them are planes.
struct PadGeometry {
  int k = 0;
  PadMode mode = PadMode::Constant;
  int64_t in[kMaxPadDims] = {}, out[kMaxPadDims] = {}, left[kMaxPadDims] = {}, right[kMaxPadDims] = {};
  int64_t in_plane = 1, out_plane = 1;  // elements of a plane in the input and the output
};

PadGeometry pad_geometry(const DimVector& in_sizes, const DimVector& pad, const std::string& mode) {
  PadGeometry g;
  const int64_t nd = static_cast<int64_t>(in_sizes.size());
  const int64_t k = static_cast<int64_t>(pad.size()) / 2;
  EMBER_CHECK(k <= kMaxPadDims, "pad: CUDA pads at most ", kMaxPadDims, " dims, got ", k);
  g.k = static_cast<int>(k);
  g.mode = pad_mode(mode);
  for (int64_t d = nd - k; d < nd; ++d) {
    const int64_t slot = d - (nd - k), i = nd - 1 - d;  // pad pairs run from the last dim backwards
    g.in[slot] = in_sizes[d];
    g.left[slot] = pad[2 * i];
    g.right[slot] = pad[2 * i + 1];
    g.out[slot] = in_sizes[d] + g.left[slot] + g.right[slot];
    g.in_plane *= g.in[slot];
    g.out_plane *= g.out[slot];
  }
  return g;
}

template <typename Bits>
__global__ void pad_kernel_impl(const Bits* x, Bits* y, int64_t total, PadGeometry g, Bits fill) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    int64_t r = i, offset = 0, in_stride = 1;
    bool constant = false;
    for (int d = g.k - 1; d >= 0; --d) {
      const int64_t o = r % g.out[d];
      r /= g.out[d];
      const int64_t j = pad_source(o, g.in[d], g.left[d], g.right[d], g.mode);
      constant = constant || j < 0;
      offset += j * in_stride;
      in_stride *= g.in[d];
    }
    y[i] = constant ? fill : x[r * g.in_plane + offset];
  }
}

template <typename Bits>
void launch_pad(const Tensor& x, const Tensor& out, const PadGeometry& g, uint64_t fill) {
  const int64_t total = out.numel();
  LaunchContext ctx(out);
  pad_kernel_impl<Bits><<<blocks_for(total), kBlockThreads, 0, ctx.stream>>>(
      static_cast<const Bits*>(x.data_ptr()), static_cast<Bits*>(out.data_ptr()), total, g, static_cast<Bits>(fill));
  EMBER_CUDA_CHECK_LAUNCH();
}

void pad_kernel(OpCall& c) {
  const Tensor x = c.in(0).contiguous();
  const PadArgs a = PadArgs::from(c);
  const PadGeometry g = pad_geometry(x.sizes(), a.pad, a.mode);
  DimVector out_sizes = x.sizes();
  for (int64_t d = x.dim() - g.k, slot = 0; d < x.dim(); ++d, ++slot) out_sizes[d] = g.out[slot];
  Tensor out = empty(out_sizes, TensorOptions(x.dtype()).device(x.device()));
  c.outputs.push_back(out);
  if (out.numel() == 0) return;
  uint64_t fill = 0;  // the value's bits in the output dtype
  EMBER_DISPATCH_ALL(x.dtype(), "pad", [&] {
    scalar_t v = a.value.to<scalar_t>();
    std::memcpy(&fill, &v, sizeof v);
  });
  switch (x.element_size()) {
    case 1: launch_pad<uint8_t>(x, out, g, fill); break;
    case 2: launch_pad<uint16_t>(x, out, g, fill); break;
    case 4: launch_pad<uint32_t>(x, out, g, fill); break;
    default: launch_pad<uint64_t>(x, out, g, fill); break;
  }
}

// Adds to acc the gradient of every output position of dims L.. that copied
// input position j (grad_output block at `offset`, row-major strides g_stride).
template <int L, typename T, typename Acc>
__device__ void gather_pad(const T* grad, int64_t offset, const int64_t* j, const int64_t* g_stride,
                           const PadGeometry& g, Acc& acc) {
  for (int64_t o = 0; o < g.out[L]; ++o) {
    if (pad_source(o, g.in[L], g.left[L], g.right[L], g.mode) != j[L]) continue;
    const int64_t off = offset + o * g_stride[L];
    if (L + 1 == g.k) acc += static_cast<Acc>(grad[off]);
    else if constexpr (L + 1 < 3) gather_pad<L + 1, T, Acc>(grad, off, j, g_stride, g, acc);
  }
}

// One thread per grad_input element (contiguous); grad_output contiguous. k is 1 to 3.
template <typename T>
__global__ void pad_backward_kernel_impl(const T* grad, T* grad_in, int64_t total, PadGeometry g) {
  using acc_t = opmath_t<T>;
  int64_t g_stride[3] = {1, 1, 1};
  int64_t s = 1;
  for (int d = g.k - 1; d >= 0; --d) {
    g_stride[d] = s;
    s *= g.out[d];
  }
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    int64_t j[3], r = i;
    for (int d = g.k - 1; d >= 0; --d) {
      j[d] = r % g.in[d];
      r /= g.in[d];
    }
    acc_t acc = 0;
    gather_pad<0, T, acc_t>(grad, r * g.out_plane, j, g_stride, g, acc);
    grad_in[i] = convert<T>(acc);
  }
}

void pad_backward_kernel(OpCall& c) {
  const Tensor grad = c.in(0).contiguous();
  const PadBackwardArgs a = PadBackwardArgs::from(c);
  const PadGeometry g = pad_geometry(a.input_size, a.pad, a.mode);
  Tensor grad_in =
      zeros(IntList(a.input_size.begin(), a.input_size.end()), TensorOptions(grad.dtype()).device(grad.device()));
  c.outputs.push_back(grad_in);
  const int64_t total = grad_in.numel();
  if (g.k == 0 || total == 0 || grad.numel() == 0) return;
  EMBER_CHECK(g.k <= 3, "pad_backward: CUDA supports 1 to 3 padded dims for mode ", a.mode);
  LaunchContext ctx(grad);
  EMBER_DISPATCH_FLOATING(grad.dtype(), "pad_backward", [&] {
    pad_backward_kernel_impl<scalar_t><<<blocks_for(total), kBlockThreads, 0, ctx.stream>>>(
        static_cast<const scalar_t*>(grad.data_ptr()), static_cast<scalar_t*>(grad_in.data_ptr()), total, g);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

EMBER_REGISTER_KERNEL(pad, CUDA, pad_kernel);
EMBER_REGISTER_KERNEL(pad_backward, CUDA, pad_backward_kernel);

}  // namespace
}  // namespace ember::cuda
