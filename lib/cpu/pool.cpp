// CPU kernels of 2-d pooling: max (with and without indices), average and
// adaptive average. Inputs are [N, C, H, W] (made contiguous); each thread
// takes whole planes. Windows follow PyTorch's CPU kernels exactly: a max
// propagates NaN (the last NaN of a window wins), and its index is the flat
// h * W + w position in the input plane.
#include <cmath>
#include <limits>

#include "cpu/dtype_dispatch.h"
#include "cpu/parallel.h"
#include "dispatch/dispatcher.h"
#include "ember/ops/factories.h"
#include "ops/pool_shape.h"

namespace ember::cpu {

namespace {

struct Window2d {
  int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1;
};

Window2d window_from(const OpCall& call, bool with_dilation) {
  const DimVector &k = call.attr(0).to_ints(), &s = call.attr(1).to_ints(),
                  &p = call.attr(2).to_ints();
  Window2d w{k[0], k[1], s[0], s[1], p[0], p[1]};
  if (with_dilation) {
    const DimVector& d = call.attr(3).to_ints();
    w.dh = d[0];
    w.dw = d[1];
  }
  return w;
}

Tensor new_output(OpCall& call, size_t i, const DimVector& sizes, DType dtype) {
  if (call.outputs.size() > i) return call.outputs[i];
  Tensor out = empty(sizes, TensorOptions(dtype));
  call.outputs.push_back(out);
  return out;
}

// Runs plane(p) for each of the planes of [N, C, ...] across threads.
template <typename F>
void for_each_plane(int64_t planes, int64_t work_per_plane, const F& plane) {
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work_per_plane));
  parallel_for(0, planes, grain, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) plane(p);
  });
}

template <typename T>
inline bool is_nan_value(opmath_t<T> v) {
  if constexpr (std::is_floating_point_v<opmath_t<T>>) return std::isnan(v);
  else return false;
}

template <typename T>
void max_pool2d_typed(const Tensor& x, const Tensor& out, int64_t* indices, const Window2d& w) {
  using Acc = opmath_t<T>;
  const int64_t H = x.size(2), W = x.size(3), OH = out.size(2), OW = out.size(3);
  const T* xp = static_cast<const T*>(x.data_ptr());
  T* op = static_cast<T*>(out.data_ptr());
  for_each_plane(x.size(0) * x.size(1), OH * OW * w.kh * w.kw, [&](int64_t p) {
    const T* in = xp + p * H * W;
    for (int64_t oh = 0; oh < OH; ++oh) {
      int64_t hs = oh * w.sh - w.ph, he = std::min(hs + (w.kh - 1) * w.dh + 1, H);
      while (hs < 0) hs += w.dh;
      for (int64_t ow = 0; ow < OW; ++ow) {
        int64_t ws = ow * w.sw - w.pw, we = std::min(ws + (w.kw - 1) * w.dw + 1, W);
        while (ws < 0) ws += w.dw;
        Acc best = std::numeric_limits<Acc>::has_infinity ? -std::numeric_limits<Acc>::infinity()
                                                          : std::numeric_limits<Acc>::lowest();
        int64_t best_i = hs * W + ws;
        for (int64_t ih = hs; ih < he; ih += w.dh)
          for (int64_t iw = ws; iw < we; iw += w.dw) {
            Acc v = static_cast<Acc>(in[ih * W + iw]);
            if (v > best || is_nan_value<T>(v)) {
              best = v;
              best_i = ih * W + iw;
            }
          }
        int64_t o = (p * OH + oh) * OW + ow;
        op[o] = static_cast<T>(best);
        if (indices) indices[o] = best_i;
      }
    }
  });
}

// max_pool2d / max_pool2d_with_indices: attrs kernel, stride, padding, dilation, ceil_mode.
void max_pool2d_common(OpCall& call, bool with_indices) {
  Tensor x = call.in(0).contiguous();
  Window2d w = window_from(call, true);
  bool ceil = call.attr(4).to_bool();
  DimVector sizes{x.size(0), x.size(1),
                  pooling_output_size(x.size(2), w.kh, w.ph, w.sh, w.dh, ceil),
                  pooling_output_size(x.size(3), w.kw, w.pw, w.sw, w.dw, ceil)};
  Tensor out = new_output(call, 0, sizes, x.dtype());
  Tensor idx = with_indices ? new_output(call, 1, sizes, kInt64) : Tensor();
  // Kernels write contiguous results; a strided preset output gets a copy.
  Tensor o = out.is_contiguous() ? out : empty(sizes, TensorOptions(x.dtype()));
  Tensor i = !with_indices || idx.is_contiguous() ? idx : empty(sizes, TensorOptions(kInt64));
  EMBER_DISPATCH_NUMERIC(x.dtype(), call.name(), [&] {
    max_pool2d_typed<scalar_t>(x, o, with_indices ? static_cast<int64_t*>(i.data_ptr()) : nullptr, w);
  });
  if (!o.is_same(out)) out.copy_(o);
  if (with_indices && !i.is_same(idx)) idx.copy_(i);
}

void max_pool2d_kernel(OpCall& call) { max_pool2d_common(call, false); }
void max_pool2d_with_indices_kernel(OpCall& call) { max_pool2d_common(call, true); }

// Sums in float (double for double), int64 for integers (integer averages truncate, as in PyTorch).
template <typename T>
using pool_acc_t = std::conditional_t<std::is_integral_v<T>, int64_t, opmath_t<T>>;

template <typename T>
void avg_pool2d_typed(const Tensor& x, const Tensor& out, const Window2d& w, bool count_include_pad,
                      int64_t divisor_override) {
  using Acc = pool_acc_t<T>;
  const int64_t H = x.size(2), W = x.size(3), OH = out.size(2), OW = out.size(3);
  const T* xp = static_cast<const T*>(x.data_ptr());
  T* op = static_cast<T*>(out.data_ptr());
  for_each_plane(x.size(0) * x.size(1), OH * OW * w.kh * w.kw, [&](int64_t p) {
    const T* in = xp + p * H * W;
    T* o = op + p * OH * OW;
    for (int64_t oh = 0; oh < OH; ++oh) {
      int64_t hs = oh * w.sh - w.ph, he = std::min(hs + w.kh, H + w.ph);
      for (int64_t ow = 0; ow < OW; ++ow) {
        int64_t ws = ow * w.sw - w.pw, we = std::min(ws + w.kw, W + w.pw);
        int64_t pool_size = (he - hs) * (we - ws);
        int64_t h0 = std::max<int64_t>(hs, 0), w0 = std::max<int64_t>(ws, 0);
        int64_t h1 = std::min(he, H), w1 = std::min(we, W);
        if (h0 >= h1 || w0 >= w1) {
          o[oh * OW + ow] = T(0);
          continue;
        }
        Acc sum = 0;
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw) sum += static_cast<Acc>(in[ih * W + iw]);
        int64_t divisor = divisor_override ? divisor_override
                          : count_include_pad ? pool_size : (h1 - h0) * (w1 - w0);
        o[oh * OW + ow] = static_cast<T>(sum / static_cast<Acc>(divisor));
      }
    }
  });
}

// avg_pool2d: attrs kernel, stride, padding, ceil_mode, count_include_pad, divisor_override?.
void avg_pool2d_kernel(OpCall& call) {
  Tensor x = call.in(0).contiguous();
  Window2d w = window_from(call, false);
  bool ceil = call.attr(3).to_bool(), include_pad = call.attr(4).to_bool();
  int64_t divisor = call.attr(5).is_none() ? 0 : call.attr(5).to_int();
  DimVector sizes{x.size(0), x.size(1), pooling_output_size(x.size(2), w.kh, w.ph, w.sh, 1, ceil),
                  pooling_output_size(x.size(3), w.kw, w.pw, w.sw, 1, ceil)};
  Tensor out = new_output(call, 0, sizes, x.dtype());
  Tensor o = out.is_contiguous() ? out : empty(sizes, TensorOptions(x.dtype()));
  EMBER_DISPATCH_NUMERIC(x.dtype(), "avg_pool2d", [&] {
    avg_pool2d_typed<scalar_t>(x, o, w, include_pad, divisor);
  });
  if (!o.is_same(out)) out.copy_(o);
}

template <typename T>
void adaptive_avg_pool2d_typed(const Tensor& x, const Tensor& out) {
  using Acc = opmath_t<T>;
  const int64_t H = x.size(2), W = x.size(3), OH = out.size(2), OW = out.size(3);
  const T* xp = static_cast<const T*>(x.data_ptr());
  T* op = static_cast<T*>(out.data_ptr());
  int64_t kh = (H + OH - 1) / std::max<int64_t>(OH, 1) + 1, kw = (W + OW - 1) / std::max<int64_t>(OW, 1) + 1;
  for_each_plane(x.size(0) * x.size(1), OH * OW * kh * kw, [&](int64_t p) {
    const T* in = xp + p * H * W;
    T* o = op + p * OH * OW;
    for (int64_t oh = 0; oh < OH; ++oh) {
      int64_t h0 = adaptive_start(oh, OH, H), h1 = adaptive_end(oh, OH, H);
      for (int64_t ow = 0; ow < OW; ++ow) {
        int64_t w0 = adaptive_start(ow, OW, W), w1 = adaptive_end(ow, OW, W);
        Acc sum = 0;
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw) sum += static_cast<Acc>(in[ih * W + iw]);
        o[oh * OW + ow] = static_cast<T>(sum / static_cast<Acc>((h1 - h0) * (w1 - w0)));
      }
    }
  });
}

// adaptive_avg_pool2d: attr output_size (pair, resolved).
void adaptive_avg_pool2d_kernel(OpCall& call) {
  Tensor x = call.in(0).contiguous();
  const DimVector& os = call.attr(0).to_ints();
  DimVector sizes{x.size(0), x.size(1), os[0], os[1]};
  Tensor out = new_output(call, 0, sizes, x.dtype());
  Tensor o = out.is_contiguous() ? out : empty(sizes, TensorOptions(x.dtype()));
  EMBER_DISPATCH_FLOATING(x.dtype(), "adaptive_avg_pool2d", [&] {
    adaptive_avg_pool2d_typed<scalar_t>(x, o);
  });
  if (!o.is_same(out)) out.copy_(o);
}

}  // namespace

EMBER_REGISTER_KERNEL(max_pool2d, CPU, max_pool2d_kernel);
EMBER_REGISTER_KERNEL(max_pool2d_with_indices, CPU, max_pool2d_with_indices_kernel);
EMBER_REGISTER_KERNEL(avg_pool2d, CPU, avg_pool2d_kernel);
EMBER_REGISTER_KERNEL(adaptive_avg_pool2d, CPU, adaptive_avg_pool2d_kernel);

}  // namespace ember::cpu
