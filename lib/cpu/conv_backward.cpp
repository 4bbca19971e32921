// CPU kernel of conv2d_backward_weight: for each image and group, the
// transposed gradient [C_in/g * kh * kw, C_out/g] += im2col(input) [K, L] @
// grad_output^T [L, C_out/g]. (This orientation of the product runs faster
// than grad_output @ im2col^T, measured with oneDNN: 190 against 160 GFLOP/s
// for [32, 784] x [784, 144].) The sums are transposed into grad_weight at the end.
//
// Images (and bands of output rows, as in the forward) are spread over the
// threads, each summing into a weight-sized buffer of its own (BLAS
// single-threaded inside); the buffers are added up at the end. When the
// buffers would be too large (big weights: each product then has work enough
// for all threads) or there are too few tasks, the images run one after
// another with im2col and BLAS threaded.
//
// float32 problems where oneDNN's backward-weights primitive is faster
// (onednn::prefer_onednn, onednn_conv.cpp) run through it instead.
#include "cpu/conv_common.h"
#include "cpu/onednn_conv.h"
#include "cpu/parallel.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/op_ids/nn_backward.h"

namespace ember::cpu {

namespace {

using namespace conv;

// All threads' private grad_weight buffers together stay below this.
constexpr int64_t kMaxPrivateBytes = int64_t(64) << 20;

template <typename T>
void conv2d_backward_weight_typed(const T* go, const T* x, T* gw, const ConvArgs& a) {
  const ConvGeometry& g = a.g;
  const int64_t K = g.col_rows(), in_plane = g.height * g.width, out_plane = g.out_h * g.out_w;
  const int64_t cin = a.in_per_group * a.groups, cout = a.out_per_group * a.groups;
  const int64_t wsize = cout * K;
  // A 1x1 kernel reads the input rows of the band as they are (no im2col).
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 &&
                         g.pw == 0 && g.out_w == g.width;
  const int64_t band = band_rows(K, g.out_w, g.out_h, sizeof(T));
  const int64_t bands = (g.out_h + band - 1) / band, tasks = a.batch * bands;
  const int64_t col_len = pointwise ? 0 : K * band * g.out_w;

  // Adds task t's products into acc [groups, K, C_out/g], using col as its column buffer.
  auto task = [&](int64_t t, T* col, T* acc) {
    const int64_t n = t / bands, r0 = (t % bands) * band, r1 = std::min(g.out_h, r0 + band);
    const int64_t len = (r1 - r0) * g.out_w;
    for (int64_t grp = 0; grp < a.groups; ++grp) {
      const T* xg = x + (n * cin + grp * a.in_per_group) * in_plane;
      const T* gg = go + (n * cout + grp * a.out_per_group) * out_plane + r0 * g.out_w;
      const T* cols = xg + r0 * g.out_w;
      int64_t ld = in_plane;
      if (!pointwise) {
        im2col(xg, g, r0, r1, col, len);
        cols = col;
        ld = len;
      }
      gemm_any(false, true, K, a.out_per_group, len, cols, ld, gg, out_plane, true,
               acc + grp * K * a.out_per_group, a.out_per_group);
    }
  };

  const int threads = max_threads();
  const bool spread = threads > 1 && tasks >= threads &&
                      tasks * a.out_per_group * K * band * g.out_w >= kParallelMacs &&
                      threads * wsize * static_cast<int64_t>(sizeof(T)) <= kMaxPrivateBytes;
  const int64_t nbuf = spread ? threads : 1, per_thread = col_len + wsize;
  Tensor buffers = empty(IntList{nbuf, per_thread}, TensorOptions(dtype_of<T>::value));
  T* base = static_cast<T*>(buffers.data_ptr());
  auto zeroed_buffer = [&](int64_t b) {  // the column buffer, then acc [groups, K, C_out/g]
    T* buf = base + b * per_thread;
    std::fill(buf + col_len, buf + per_thread, T(0));
    return buf;
  };
  if (!spread) {
    T* buf = zeroed_buffer(0);
    for (int64_t t = 0; t < tasks; ++t) task(t, buf, buf + col_len);
  } else {
    // Buffer b accumulates the b-th of nbuf fixed runs of tasks, whichever thread runs
    // it, so the sum below is the same from run to run.
    run_parallel(nbuf, threads, [&](int64_t b, int) {
      T* buf = zeroed_buffer(b);
      for (int64_t t = tasks * b / nbuf; t < tasks * (b + 1) / nbuf; ++t) task(t, buf, buf + col_len);
    });
  }
  // gw[grp, c, k] = the sum over the buffers of acc[grp, k, c].
  const int64_t per_group = a.out_per_group * K;
  parallel_for(0, wsize, kGrainSize / threads, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t grp = i / per_group, c = (i / K) % a.out_per_group, k = i % K;
      const T* acc = base + col_len + grp * per_group + k * a.out_per_group + c;
      T sum = T(0);
      for (int64_t b = 0; b < nbuf; ++b) sum += acc[b * per_thread];
      gw[i] = sum;
    }
  });
}

// conv2d_backward_weight: in grad_output [N,C_out,OH,OW], input [N,C_in,H,W];
// attrs weight_size [C_out, C_in/groups, kh, kw], stride, padding, dilation, groups.
void conv2d_backward_weight_kernel(OpCall& call) {
  const Tensor &go = call.in(0), &x = call.in(1);
  const Conv2dBackwardWeightArgs args = Conv2dBackwardWeightArgs::from(call);
  ConvGeometry g{args.weight_size[1], x.size(2), x.size(3), args.weight_size[2], args.weight_size[3],
                 args.stride[0], args.stride[1], args.padding[0], args.padding[1], args.dilation[0],
                 args.dilation[1], go.size(2), go.size(3)};
  ConvArgs a{x.size(0), args.groups, args.weight_size[1], args.weight_size[0] / args.groups, g};
  run_conv(call, args.weight_size, "conv2d_backward_weight",
           [&](auto tag, const Tensor& gc, const Tensor& xc, const Tensor&, const Tensor& gw) {
             using T = decltype(tag);
             if constexpr (std::is_same_v<T, float>) {
               onednn::Conv2dShape s{x.size(0), x.size(1), x.size(2), x.size(3), args.weight_size[0], g.kh, g.kw,
                                     g.sh, g.sw, g.ph, g.pw, g.dh, g.dw, args.groups, g.out_h, g.out_w};
               if (onednn::prefer_onednn(s, onednn::ConvDirection::backward_weights) &&
                   onednn::conv2d_backward_weights(s, static_cast<const float*>(xc.data_ptr()),
                                                   static_cast<const float*>(gc.data_ptr()),
                                                   static_cast<float*>(gw.data_ptr())))
                 return;
             }
             conv2d_backward_weight_typed<T>(static_cast<const T*>(gc.data_ptr()),
                                             static_cast<const T*>(xc.data_ptr()),
                                             static_cast<T*>(gw.data_ptr()), a);
           });
}

}  // namespace

EMBER_REGISTER_KERNEL(conv2d_backward_weight, CPU, conv2d_backward_weight_kernel);

}  // namespace ember::cpu
