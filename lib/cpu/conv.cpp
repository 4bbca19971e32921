// CPU kernels of conv2d, conv_transpose2d and conv2d_backward_input (the same
// computation as conv_transpose2d): im2col / col2im (im2col.h) around one
// matrix product per image and group.
//
// Images are spread over the OpenMP threads (each with its own column buffer,
// BLAS single-threaded inside) when there are enough of them; otherwise images
// run one by one with im2col and BLAS threaded. Column buffers hold a band of
// output rows at most kColBufferBytes large, so memory stays bounded for big
// images and the band stays in cache; images with small output planes are
// stacked side by side instead, so each product is wide enough to run at full
// speed. float16/bfloat16 compute in float32; integers use the reference gemm.
//
// float32 problems where oneDNN's primitives are faster (onednn::prefer_onednn,
// measured thresholds in onednn_conv.cpp) run through them instead; conv_transpose2d
// and conv2d_backward_input as oneDNN's backward-data. When oneDNN is missing or
// rejects a problem, the im2col path below runs.
#include "cpu/conv_common.h"
#include "cpu/onednn_conv.h"
#include "cpu/parallel.h"
#include "dispatch/args/linalg.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/op_ids/linalg.h"
#include "dispatch/op_ids/nn_backward.h"

namespace ember::cpu {

namespace {

using namespace conv;

// Images with fewer output positions than this are stacked side by side in one
// column matrix, so that a product has enough columns to run at full speed.
constexpr int64_t kMinGemmCols = 1024;
// Rows per band of output for conv2d_banded: as many as the column buffer
// holds, fewer when that leaves the threads too few (image, band) tasks to share
// evenly, but not below kMinBandCols output positions per product.
constexpr int64_t kMinBandCols = 256;

int64_t conv_band(const ConvGeometry& g, int64_t batch, size_t itemsize) {
  int64_t band = band_rows(g.col_rows(), g.out_w, g.out_h, itemsize);
  int64_t threads = max_threads();
  int64_t bands = (g.out_h + band - 1) / band;
  if (threads > 1 && batch * bands < 4 * threads) {
    int64_t want = (4 * threads + batch - 1) / batch;
    int64_t min_rows = (kMinBandCols + g.out_w - 1) / std::max<int64_t>(g.out_w, 1);
    int64_t most = std::max<int64_t>(1, g.out_h / min_rows);
    bands = std::clamp(want, bands, std::max(bands, most));
    band = (g.out_h + bands - 1) / bands;
  }
  return std::max<int64_t>(band, 1);
}

// conv2d as independent (image, band of output rows) tasks: im2col of the band
// (none for a 1x1 kernel, whose columns are the input itself) and one product
// per group into the band's rows of the output.
template <typename T>
void conv2d_banded(const ConvPointers<T>& p, const ConvArgs& a) {
  const ConvGeometry& g = a.g;
  const int64_t K = g.col_rows(), in_plane = g.height * g.width, out_plane = g.out_h * g.out_w;
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
  const int64_t band = conv_band(g, a.batch, sizeof(T));
  const int64_t bands = (g.out_h + band - 1) / band;
  const int64_t cin = a.in_per_group * a.groups, cout = a.out_per_group * a.groups;
  const int64_t macs = cout * K * band * g.out_w;
  for_each_task<T>(a.batch * bands, macs, pointwise ? 0 : K * band * g.out_w, [&](int64_t t, T* col) {
    const int64_t n = t / bands, r0 = (t % bands) * band, r1 = std::min(g.out_h, r0 + band);
    const int64_t len = (r1 - r0) * g.out_w, first = r0 * g.out_w;
    T* yn = p.y + n * cout * out_plane + first;  // the band's first position, channel 0
    if (p.bias)
      for (int64_t c = 0; c < cout; ++c) std::fill(yn + c * out_plane, yn + c * out_plane + len, p.bias[c]);
    for (int64_t grp = 0; grp < a.groups; ++grp) {
      const T* xg = p.x + (n * cin + grp * a.in_per_group) * in_plane;
      const T* wg = p.w + grp * a.out_per_group * K;
      T* yg = yn + grp * a.out_per_group * out_plane;
      if (pointwise) {
        gemm_any(false, false, a.out_per_group, len, K, wg, K, xg + first, in_plane, p.bias != nullptr, yg,
                 out_plane);
      } else {
        im2col(xg, g, r0, r1, col, len);
        gemm_any(false, false, a.out_per_group, len, K, wg, K, col, len, p.bias != nullptr, yg, out_plane);
      }
    }
  });
}

// conv2d for small output planes: `stack` images side by side in one column
// matrix, one product per group, then each image's block copied out (+ bias).
template <typename T>
void conv2d_stacked(const ConvPointers<T>& p, const ConvArgs& a, int64_t stack) {
  const ConvGeometry& g = a.g;
  const int64_t K = g.col_rows(), in_plane = g.height * g.width, out_plane = g.out_h * g.out_w;
  const int64_t cin = a.in_per_group * a.groups, cout = a.out_per_group * a.groups;
  const int64_t width = stack * out_plane, col_len = K * width;
  const int64_t tasks = (a.batch + stack - 1) / stack;
  for_each_task<T>(tasks, cout * K * width, col_len + a.out_per_group * width, [&](int64_t t, T* buf) {
    int64_t n0 = t * stack, count = std::min(a.batch - n0, stack), cols = count * out_plane;
    T *col = buf, *prod = buf + col_len;
    for (int64_t grp = 0; grp < a.groups; ++grp) {
      for (int64_t i = 0; i < count; ++i)
        im2col(p.x + ((n0 + i) * cin + grp * a.in_per_group) * in_plane, g, 0, g.out_h,
               col + i * out_plane, cols);
      gemm_any(false, false, a.out_per_group, cols, K, p.w + grp * a.out_per_group * K, K, col, cols, false,
               prod, cols);
      for (int64_t i = 0; i < count; ++i)
        for (int64_t c = 0; c < a.out_per_group; ++c) {
          int64_t co = grp * a.out_per_group + c;
          const T* src = prod + c * cols + i * out_plane;
          T* dst = p.y + ((n0 + i) * cout + co) * out_plane;
          T b = p.bias ? p.bias[co] : T(0);
          for (int64_t l = 0; l < out_plane; ++l) dst[l] = src[l] + b;
        }
    }
  });
}

template <typename T>
void conv2d_typed(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& y,
                  const ConvArgs& a) {
  ConvPointers<T> p(x, w, bias, y);
  const ConvGeometry& g = a.g;
  const int64_t out_plane = g.out_h * g.out_w;
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
  int64_t stack = std::min(a.batch, (kMinGemmCols + out_plane - 1) / std::max<int64_t>(out_plane, 1));
  // ... as many as fit 4 column bands
  stack = std::min(stack, 4 * kColBufferBytes / std::max<int64_t>(1, g.col_rows() * out_plane * int64_t(sizeof(T))));
  if (!pointwise && stack > 1) conv2d_stacked(p, a, stack);
  else conv2d_banded(p, a);
}

// conv_transpose2d: y is the image side of the geometry, x its column side.
template <typename T>
void conv_transpose2d_typed(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& y,
                            const ConvArgs& a) {
  const ConvGeometry& g = a.g;
  const int64_t K = g.col_rows(), in_plane = g.out_h * g.out_w, out_plane = g.height * g.width;
  // (with a 1x1 kernel, output_padding may still make y larger than x)
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 &&
                         g.pw == 0 && in_plane == out_plane;
  const int64_t band = band_rows(K, g.out_w, g.out_h, sizeof(T));
  const T* xp = static_cast<const T*>(x.data_ptr());
  const T* wp = static_cast<const T*>(w.data_ptr());
  const T* bp = bias.defined() ? static_cast<const T*>(bias.data_ptr()) : nullptr;
  T* yp = static_cast<T*>(y.data_ptr());
  const int64_t cin = a.in_per_group * a.groups, cout = a.out_per_group * a.groups;
  int64_t macs = cin * K * in_plane;
  for_each_task<T>(a.batch, macs, pointwise ? 0 : K * band * g.out_w, [&](int64_t n, T* col) {
    T* yn = yp + n * cout * out_plane;
    fill_bias(yn, bp, cout, out_plane);
    for (int64_t grp = 0; grp < a.groups; ++grp) {
      const T* xg = xp + (n * cin + grp * a.in_per_group) * in_plane;
      const T* wg = wp + grp * a.in_per_group * K;  // [in_per_group, K]
      T* yg = yn + grp * a.out_per_group * out_plane;
      if (pointwise) {
        gemm_any(true, false, K, in_plane, a.in_per_group, wg, K, xg, in_plane, true, yg, out_plane);
        continue;
      }
      for (int64_t r0 = 0; r0 < g.out_h; r0 += band) {
        int64_t r1 = std::min(g.out_h, r0 + band), len = (r1 - r0) * g.out_w;
        gemm_any(true, false, K, len, a.in_per_group, wg, K, xg + r0 * g.out_w, in_plane, false, col, len);
        col2im(col, g, r0, r1, yg, len);
      }
    }
  });
}

// The oneDNN problem of a conv2d described by ConvArgs (image side = conv2d's input).
onednn::Conv2dShape onednn_shape(const ConvArgs& a) {
  const ConvGeometry& g = a.g;
  return {a.batch, a.in_per_group * a.groups, g.height, g.width, a.out_per_group * a.groups, g.kh, g.kw,
          g.sh, g.sw, g.ph, g.pw, g.dh, g.dw, a.groups, g.out_h, g.out_w};
}

// conv_transpose2d / conv2d_backward_input (x on the column side, y on the image
// side) as oneDNN's backward-data of the conv2d from y's shape to x's, then + bias.
// False when the rule picks im2col or oneDNN rejects the problem (y untouched).
bool transposed_through_onednn(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& y,
                               const ConvArgs& a) {
  // As a conv2d: input channels = the transposed conv's outputs, and back.
  ConvArgs c = a;
  std::swap(c.in_per_group, c.out_per_group);
  c.g.channels = c.in_per_group;
  onednn::Conv2dShape s = onednn_shape(c);
  if (!onednn::prefer_onednn(s, onednn::ConvDirection::backward_data) ||
      !onednn::conv2d_backward_data(s, static_cast<const float*>(x.data_ptr()), static_cast<const float*>(w.data_ptr()),
                                    static_cast<float*>(y.data_ptr())))
    return false;
  if (bias.defined()) {
    const float* b = static_cast<const float*>(bias.data_ptr());
    float* yp = static_cast<float*>(y.data_ptr());
    const int64_t cout = s.in_channels, plane = s.height * s.width;
    parallel_for(0, a.batch * cout, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(plane, 1)),
                 [&](int64_t i0, int64_t i1) {
                   for (int64_t i = i0; i < i1; ++i) {
                     float* row = yp + i * plane;
                     const float bv = b[i % cout];
                     for (int64_t l = 0; l < plane; ++l) row[l] += bv;
                   }
                 });
  }
  return true;
}

// conv2d: in input [N,C,H,W], weight [C_out, C/groups, kh, kw], bias? [C_out];
// attrs stride, padding, dilation (pairs), groups. Arguments are checked by ember::conv2d.
void conv2d_kernel(OpCall& call) {
  const Tensor &x = call.in(0), &w = call.in(1);
  const Conv2dArgs args = Conv2dArgs::from(call);
  int64_t oh = (x.size(2) + 2 * args.padding[0] - args.dilation[0] * (w.size(2) - 1) - 1) / args.stride[0] + 1;
  int64_t ow = (x.size(3) + 2 * args.padding[1] - args.dilation[1] * (w.size(3) - 1) - 1) / args.stride[1] + 1;
  ConvArgs a{x.size(0), args.groups, x.size(1) / args.groups, w.size(0) / args.groups,
             geometry(x.size(1) / args.groups, x.size(2), x.size(3), w, args.stride, args.padding, args.dilation,
                      oh, ow)};
  run_conv(call, {x.size(0), w.size(0), oh, ow}, "conv2d", [&](auto tag, const Tensor& xc,
           const Tensor& wc, const Tensor& bc, const Tensor& y) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float>) {
      onednn::Conv2dShape s = onednn_shape(a);
      if (onednn::prefer_onednn(s, onednn::ConvDirection::forward) &&
          onednn::conv2d_forward(s, static_cast<const float*>(xc.data_ptr()), static_cast<const float*>(wc.data_ptr()),
                                 bc.defined() ? static_cast<const float*>(bc.data_ptr()) : nullptr,
                                 static_cast<float*>(y.data_ptr())))
        return;
    }
    conv2d_typed<T>(xc, wc, bc, y, a);
  });
}

// conv_transpose2d: in input [N,C_in,H,W], weight [C_in, C_out/groups, kh, kw], bias?;
// attrs stride, padding, output_padding, groups, dilation.
void conv_transpose2d_kernel(OpCall& call) {
  const Tensor &x = call.in(0), &w = call.in(1);
  const ConvTranspose2dArgs args = ConvTranspose2dArgs::from(call);
  int64_t oh = (x.size(2) - 1) * args.stride[0] - 2 * args.padding[0] + args.dilation[0] * (w.size(2) - 1) +
               args.output_padding[0] + 1;
  int64_t ow = (x.size(3) - 1) * args.stride[1] - 2 * args.padding[1] + args.dilation[1] * (w.size(3) - 1) +
               args.output_padding[1] + 1;
  int64_t out_per_group = w.size(1);
  ConvArgs a{x.size(0), args.groups, x.size(1) / args.groups, out_per_group,
             geometry(out_per_group, oh, ow, w, args.stride, args.padding, args.dilation, x.size(2), x.size(3))};
  run_conv(call, {x.size(0), out_per_group * args.groups, oh, ow}, "conv_transpose2d",
           [&](auto tag, const Tensor& xc, const Tensor& wc, const Tensor& bc, const Tensor& y) {
             using T = decltype(tag);
             if constexpr (std::is_same_v<T, float>) {
               if (transposed_through_onednn(xc, wc, bc, y, a)) return;
             }
             conv_transpose2d_typed<T>(xc, wc, bc, y, a);
           });
}

// conv2d_backward_input: in grad_output [N,C_out,OH,OW], weight [C_out, C_in/groups, kh, kw];
// attrs input_size [N,C_in,H,W], stride, padding, dilation, groups. The
// conv_transpose2d of grad_output (no bias), its output size given.
void conv2d_backward_input_kernel(OpCall& call) {
  const Tensor &go = call.in(0), &w = call.in(1);
  const Conv2dBackwardInputArgs args = Conv2dBackwardInputArgs::from(call);
  int64_t out_per_group = w.size(1);
  ConvArgs a{go.size(0), args.groups, go.size(1) / args.groups, out_per_group,
             geometry(out_per_group, args.input_size[2], args.input_size[3], w, args.stride, args.padding,
                      args.dilation, go.size(2), go.size(3))};
  run_conv(call, args.input_size, "conv2d_backward_input",
           [&](auto tag, const Tensor& gc, const Tensor& wc, const Tensor& none, const Tensor& y) {
             using T = decltype(tag);
             if constexpr (std::is_same_v<T, float>) {
               if (transposed_through_onednn(gc, wc, none, y, a)) return;
             }
             conv_transpose2d_typed<T>(gc, wc, none, y, a);
           });
}

}  // namespace

EMBER_REGISTER_KERNEL(conv2d, CPU, conv2d_kernel);
EMBER_REGISTER_KERNEL(conv_transpose2d, CPU, conv_transpose2d_kernel);
EMBER_REGISTER_KERNEL(conv2d_backward_input, CPU, conv2d_backward_input_kernel);

}  // namespace ember::cpu
