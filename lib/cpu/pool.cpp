// CPU kernels of 2-d pooling: max (with and without indices), average and
// adaptive average. Inputs are [N, C, H, W] (made contiguous); each thread
// takes whole planes. Windows follow PyTorch's CPU kernels exactly: a max
// propagates NaN (the last NaN of a window wins), and its index is the flat
// h * W + w position in the input plane.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "kernels/dtype_dispatch.h"
#include "dispatch/args/linalg.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/linalg.h"
#include "ember/ops/factories.h"
#include "cpu/nn_common.h"  // EMBER_CLONES
#include "cpu/pool_common.h"

namespace ember::cpu {

namespace {

Tensor new_output(OpCall& call, size_t i, const DimVector& sizes, DType dtype) {
  if (call.outputs.size() > i) return call.outputs[i];
  Tensor out = empty(sizes, TensorOptions(dtype));
  call.outputs.push_back(out);
  return out;
}

template <typename T>
inline bool is_nan_value(opmath_t<T> v) {
  if constexpr (std::is_floating_point_v<opmath_t<T>>) return std::isnan(v);
  else return false;
}

// The sum of the window [h0, h1) x [w0, w1) of a plane with row length W.
// The simd reduction lets the compiler reorder the additions (vectorize).
template <typename Acc, typename T>
inline Acc window_sum(const T* in, int64_t W, int64_t h0, int64_t h1, int64_t w0, int64_t w1) {
  Acc sum = 0;
  if (w0 == 0 && w1 == W) {  // whole rows: one contiguous run (global pooling)
    const T* run = in + h0 * W;
    const int64_t n = (h1 - h0) * W;
#pragma omp simd reduction(+ : sum)
    for (int64_t k = 0; k < n; ++k) sum += static_cast<Acc>(run[k]);
    return sum;
  }
  for (int64_t ih = h0; ih < h1; ++ih) {
    const T* row = in + ih * W;
#pragma omp simd reduction(+ : sum)
    for (int64_t iw = w0; iw < w1; ++iw) sum += static_cast<Acc>(row[iw]);
  }
  return sum;
}

// The range [lo, hi) of outputs o whose input o * stride + off lies in [0, size).
inline void valid_outputs(int64_t off, int64_t stride, int64_t size, int64_t outs, int64_t& lo,
                          int64_t& hi) {
  lo = off >= 0 ? 0 : (-off + stride - 1) / stride;
  hi = size - off <= 0 ? 0 : std::min(outs, (size - off - 1) / stride + 1);
  lo = std::min(lo, hi);
}

// The first of start, start + step, ... that is not negative.
inline int64_t first_inside(int64_t start, int64_t step) {
  return start >= 0 ? start : start + (-start + step - 1) / step * step;
}

// take ? a : b through bit masks: compilers turn a plain ?: back into a branch,
// which mispredicts half the time on random data.
template <typename V>
inline V select_bits(bool take, V a, V b) {
  using U = std::conditional_t<sizeof(V) == 8, uint64_t,
                               std::conditional_t<sizeof(V) == 4, uint32_t,
                                                  std::conditional_t<sizeof(V) == 2, uint16_t, uint8_t>>>;
  U mask = static_cast<U>(U(0) - static_cast<U>(take));
  return std::bit_cast<V>(static_cast<U>((std::bit_cast<U>(a) & mask) | (std::bit_cast<U>(b) & ~mask)));
}

// best[o] = max(best[o], row[o * stride + off]) for o in [lo, hi), NaN winning,
// with best_i[o] = base + o * stride + off where the row wins. Branch-free (on
// random data the comparison is a coin toss).
template <typename T, typename Acc>
inline void max_into_row(const T* __restrict row, int64_t stride, int64_t off, int64_t base,
                         int64_t lo, int64_t hi, Acc* __restrict best, int64_t* __restrict best_i) {
  for (int64_t o = lo; o < hi; ++o) {
    int64_t iw = o * stride + off;
    Acc v = static_cast<Acc>(row[iw]);
    bool take = (v > best[o]) | is_nan_value<T>(v);
    best[o] = select_bits(take, v, best[o]);
    best_i[o] = select_bits(take, base + iw, best_i[o]);
  }
}

// The taps of one output row (or column) of a window: kernel taps [lo, hi) fall inside
// the input, the window starts at `start`, and `first` is its first position inside
// (the index reported when every value is -inf).
struct TapSpan {
  int64_t lo, hi, start, first;
};

std::vector<TapSpan> tap_spans(int64_t outs, int64_t stride, int64_t pad, int64_t dilation, int64_t size,
                               int64_t kernel) {
  std::vector<TapSpan> spans(static_cast<size_t>(outs));
  for (int64_t o = 0; o < outs; ++o) {
    TapSpan& s = spans[static_cast<size_t>(o)];
    s.start = o * stride - pad;
    valid_outputs(s.start, dilation, size, kernel, s.lo, s.hi);
    s.first = first_inside(s.start, dilation);
  }
  return spans;
}

// Narrow outputs (OW <= kDirectMaxCols, e.g. a 2x2 pool of a 4x4 map): each output
// scans its window directly, with the row and column spans computed once per call.
// The row-at-a-time loop below pays per-row set-up (and integer divisions) that a
// 2-wide output row never earns back: 4x faster at [32, 64, 4, 4] kernel 2, 1.7-2.5x
// at 8x8 with stride 2; from 8 output columns up that loop, which vectorizes over the
// row, is faster. The order of the values (row by row) and the NaN rule are the same.
constexpr int64_t kDirectMaxCols = 4;

template <typename T>
void max_pool2d_direct(const T* xp, T* op, int64_t* indices, int64_t planes, int64_t H, int64_t W,
                       int64_t OH, int64_t OW, const Window2d& w) {
  using Acc = opmath_t<T>;
  const Acc lowest = std::numeric_limits<Acc>::has_infinity ? -std::numeric_limits<Acc>::infinity()
                                                            : std::numeric_limits<Acc>::lowest();
  const std::vector<TapSpan> rows = tap_spans(OH, w.sh, w.ph, w.dh, H, w.kh);
  const std::vector<TapSpan> cols = tap_spans(OW, w.sw, w.pw, w.dw, W, w.kw);
  const int64_t row_step = w.dh * W, col_step = w.dw;
  for_each_plane(planes, OH * OW * std::min(w.kh, H) * std::min(w.kw, W), [&](int64_t p) {
    const T* in = xp + p * H * W;
    T* o = op + p * OH * OW;
    for (int64_t oh = 0; oh < OH; ++oh) {
      const TapSpan r = rows[static_cast<size_t>(oh)];
      for (int64_t ow = 0; ow < OW; ++ow) {
        const TapSpan c = cols[static_cast<size_t>(ow)];
        Acc best = lowest;
        int64_t best_i = r.first * W + c.first;
        for (int64_t i = r.lo; i < r.hi; ++i) {
          const int64_t base = r.start * W + i * row_step + c.start;
          for (int64_t j = c.lo; j < c.hi; ++j) {
            const int64_t k = base + j * col_step;
            const Acc v = static_cast<Acc>(in[k]);
            // | rather than ||: no branch; a ternary compiles to a blend here.
            const bool take = (v > best) | is_nan_value<T>(v);
            best = take ? v : best;
            best_i = take ? k : best_i;
          }
        }
        o[oh * OW + ow] = static_cast<T>(best);
        if (indices) indices[(p * OH + oh) * OW + ow] = best_i;
      }
    }
  });
}

// The 2x2 window of stride 2 without padding or indices (the pools of small CNNs, the
// digits CNN's at batch 1: bench/deploy_runtime.py): the window's four values with
// the rule of max_pool2d_direct (so ties and NaNs give the same bits), without its
// index bookkeeping and per-window spans.
template <typename T>
void max_pool2d_2x2(const T* xp, T* op, int64_t planes, int64_t H, int64_t W, int64_t OH, int64_t OW) {
  using Acc = opmath_t<T>;
  // max_pool2d_direct's step: the next value replaces the best when larger or NaN.
  auto pick = [](Acc best, Acc v) { return ((v > best) | is_nan_value<T>(v)) ? v : best; };
  for_each_plane(planes, OH * OW * 4, [&](int64_t p) {
    const T* in = xp + p * H * W;
    T* o = op + p * OH * OW;
    for (int64_t oh = 0; oh < OH; ++oh) {
      const T* r0 = in + 2 * oh * W;
      const T* r1 = r0 + W;
      for (int64_t ow = 0; ow < OW; ++ow) {
        // The pairs first, then the two winners: the same bits as the four in turn from
        // -inf (the first of equal values, the last NaN; pick(-inf, v) is v), with a
        // shorter chain.
        const Acc top = pick(static_cast<Acc>(r0[2 * ow]), static_cast<Acc>(r0[2 * ow + 1]));
        const Acc bottom = pick(static_cast<Acc>(r1[2 * ow]), static_cast<Acc>(r1[2 * ow + 1]));
        o[oh * OW + ow] = static_cast<T>(pick(top, bottom));
      }
    }
  });
}

// One output row at a time, kernel offsets outside and output columns inside,
// so the inner loop is branch-free over a row (it vectorizes for stride 1).
// Each output sees its window's values in PyTorch's order (row by row), so ties
// and NaNs resolve the same way.
template <typename T>
void max_pool2d_typed(const Tensor& x, const Tensor& out, int64_t* indices, const Window2d& w) {
  using Acc = opmath_t<T>;
  const int64_t H = x.size(2), W = x.size(3), OH = out.size(2), OW = out.size(3);
  const T* xp = static_cast<const T*>(x.data_ptr());
  T* op = static_cast<T*>(out.data_ptr());
  // (Wider rows: the row loop below vectorizes and is faster.)
  if (!indices && OW <= kDirectMaxCols && w.kh == 2 && w.kw == 2 && w.sh == 2 && w.sw == 2 && w.ph == 0 &&
      w.pw == 0 && w.dh == 1 && w.dw == 1 && 2 * OH <= H && 2 * OW <= W) {
    max_pool2d_2x2(xp, op, x.size(0) * x.size(1), H, W, OH, OW);
    return;
  }
  if (OW <= kDirectMaxCols) {
    max_pool2d_direct(xp, op, indices, x.size(0) * x.size(1), H, W, OH, OW, w);
    return;
  }
  const Acc lowest = std::numeric_limits<Acc>::has_infinity ? -std::numeric_limits<Acc>::infinity()
                                                            : std::numeric_limits<Acc>::lowest();
  // The first input column inside each output's window (its index if all are -inf).
  std::vector<int64_t> first_col(OW);
  for (int64_t ow = 0; ow < OW; ++ow) first_col[ow] = first_inside(ow * w.sw - w.pw, w.dw);
  // Only the kernel columns that reach into the input for some output column
  // are visited, as ascending [j0, j1) runs: a wide window that is mostly
  // padding (a hostile model file's kernel of 2^31 - 1) costs what its inside does.
  std::vector<std::pair<int64_t, int64_t>> col_taps;
  for (int64_t ow = 0; ow < OW; ++ow) {
    int64_t lo, hi;
    valid_outputs(ow * w.sw - w.pw, w.dw, W, w.kw, lo, hi);
    if (lo < hi) col_taps.emplace_back(lo, hi);
  }
  std::sort(col_taps.begin(), col_taps.end());
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (auto [lo, hi] : col_taps) {
    if (!runs.empty() && lo <= runs.back().second) runs.back().second = std::max(runs.back().second, hi);
    else runs.emplace_back(lo, hi);
  }
  int64_t planes = x.size(0) * x.size(1);
  int64_t work = OH * OW * std::min(w.kh, H) * std::min(w.kw, W);
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work));
  parallel_for(0, planes, grain, [&](int64_t p0, int64_t p1) {
    std::vector<Acc> best(OW);
    std::vector<int64_t> best_i(OW);
    for (int64_t p = p0; p < p1; ++p) {
      const T* in = xp + p * H * W;
      for (int64_t oh = 0; oh < OH; ++oh) {
        const int64_t hs = oh * w.sh - w.ph, first_row = first_inside(hs, w.dh);
        for (int64_t ow = 0; ow < OW; ++ow) {
          best[ow] = lowest;
          best_i[ow] = first_row * W + first_col[ow];
        }
        int64_t i0, i1;  // the kernel rows inside the input
        valid_outputs(hs, w.dh, H, w.kh, i0, i1);
        for (int64_t i = i0; i < i1; ++i) {
          const int64_t ih = hs + i * w.dh;
          const T* row = in + ih * W;
          for (auto [j0, j1] : runs)
            for (int64_t j = j0; j < j1; ++j) {
              int64_t off = j * w.dw - w.pw, lo, hi;
              valid_outputs(off, w.sw, W, OW, lo, hi);
              max_into_row<T>(row, w.sw, off, ih * W, lo, hi, best.data(), best_i.data());
            }
        }
        T* o = op + (p * OH + oh) * OW;
        for (int64_t ow = 0; ow < OW; ++ow) o[ow] = static_cast<T>(best[ow]);
        if (indices) std::copy(best_i.begin(), best_i.end(), indices + (p * OH + oh) * OW);
      }
    }
  });
}

// max_pool2d / max_pool2d_with_indices (Args: MaxPool2dArgs, MaxPool2dWithIndicesArgs):
// attrs kernel, stride, padding, dilation, ceil_mode.
template <class Args>
void max_pool2d_common(OpCall& call, bool with_indices) {
  Tensor x = call.in(0).contiguous();
  const Args a = Args::from(call);
  Window2d w = window_from(a);
  DimVector sizes{x.size(0), x.size(1),
                  pooling_output_size(x.size(2), w.kh, w.ph, w.sh, w.dh, a.ceil_mode),
                  pooling_output_size(x.size(3), w.kw, w.pw, w.sw, w.dw, a.ceil_mode)};
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

void max_pool2d_kernel(OpCall& call) { max_pool2d_common<MaxPool2dArgs>(call, false); }
void max_pool2d_with_indices_kernel(OpCall& call) { max_pool2d_common<MaxPool2dWithIndicesArgs>(call, true); }

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
  if (OH * OW <= kPrecomputedWindows) {
    // The windows are the same in every plane: computed once, then each plane sums
    // them in order (row by row, as PyTorch), with no per-output set-up. 1.7x faster
    // at [32, 64, 4, 4] kernel 2, 1.4x at 28x28.
    std::vector<AvgWindow> windows(static_cast<size_t>(OH * OW));
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow)
        windows[static_cast<size_t>(oh * OW + ow)] = avg_window(w, oh, ow, H, W, count_include_pad, divisor_override);
    for_each_plane(x.size(0) * x.size(1), work_product({OH, OW, w.kh, w.kw}), [&](int64_t p) {
      const T* in = xp + p * H * W;
      T* o = op + p * OH * OW;
      for (size_t q = 0; q < windows.size(); ++q) {
        const AvgWindow& a = windows[q];
        Acc sum = 0;
        for (int64_t ih = a.h0; ih < a.h1; ++ih)
          for (int64_t iw = a.w0; iw < a.w1; ++iw) sum += static_cast<Acc>(in[ih * W + iw]);
        o[q] = a.empty() ? T(0) : static_cast<T>(sum / static_cast<Acc>(a.divisor));
      }
    });
    return;
  }
  for_each_plane(x.size(0) * x.size(1), work_product({OH, OW, w.kh, w.kw}), [&](int64_t p) {
    const T* in = xp + p * H * W;
    T* o = op + p * OH * OW;
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        AvgWindow a = avg_window(w, oh, ow, H, W, count_include_pad, divisor_override);
        o[oh * OW + ow] = a.empty() ? T(0)
                          : static_cast<T>(window_sum<Acc>(in, W, a.h0, a.h1, a.w0, a.w1) /
                                           static_cast<Acc>(a.divisor));
      }
  });
}

// avg_pool2d: attrs kernel, stride, padding, ceil_mode, count_include_pad, divisor_override?.
void avg_pool2d_kernel(OpCall& call) {
  Tensor x = call.in(0).contiguous();
  const AvgPool2dArgs a = AvgPool2dArgs::from(call);
  Window2d w = window_from(a);
  DimVector sizes{x.size(0), x.size(1), pooling_output_size(x.size(2), w.kh, w.ph, w.sh, 1, a.ceil_mode),
                  pooling_output_size(x.size(3), w.kw, w.pw, w.sw, 1, a.ceil_mode)};
  Tensor out = new_output(call, 0, sizes, x.dtype());
  Tensor o = out.is_contiguous() ? out : empty(sizes, TensorOptions(x.dtype()));
  EMBER_DISPATCH_NUMERIC(x.dtype(), "avg_pool2d", [&] {
    avg_pool2d_typed<scalar_t>(x, o, w, a.count_include_pad, a.divisor_override.value_or(0));
  });
  if (!o.is_same(out)) out.copy_(o);
}

// Global average pooling (output 1x1): the mean of each plane's n contiguous values,
// planes [p0, p1). Compiled per ISA, with kLanes partial sums so the additions are
// independent vector chains: one accumulator (what `omp simd reduction` gives) left a
// 784-value plane latency-bound, 3x slower than PyTorch at [32, 64, 28, 28].
//
// Planes of at most kAcrossPlanes values (maps up to 5x5) are summed 16 planes at a time,
// one vector lane per plane, each lane adding its plane's values in order: a reduction
// within a plane of 4 to 25 values costs more in set-up and horizontal adds than the
// sum itself (5x faster at 2x2 and 3x3, 2x at 4x4).
template <typename T>
EMBER_CLONES void plane_means(const T* in, T* out, int64_t p0, int64_t p1, int64_t n) {
  using Acc = opmath_t<T>;
  constexpr int64_t kLanes = 64, kAcrossPlanes = 32, kPlanes = 16;
  if (n <= kAcrossPlanes) {
    for (; p0 + kPlanes <= p1; p0 += kPlanes) {
      const T* r = in + p0 * n;
      Acc acc[kPlanes] = {};
      for (int64_t k = 0; k < n; ++k)
#pragma omp simd
        for (int64_t l = 0; l < kPlanes; ++l) acc[l] += static_cast<Acc>(r[l * n + k]);
      for (int64_t l = 0; l < kPlanes; ++l) out[p0 + l] = static_cast<T>(acc[l] / static_cast<Acc>(n));
    }
  }
  for (int64_t p = p0; p < p1; ++p) {
    const T* r = in + p * n;
    Acc sum = 0;
    int64_t k = 0;
    if (n >= 2 * kLanes) {
      Acc partial[kLanes] = {};
      for (; k + kLanes <= n; k += kLanes)
#pragma omp simd
        for (int64_t l = 0; l < kLanes; ++l) partial[l] += static_cast<Acc>(r[k + l]);
#pragma omp simd reduction(+ : sum)
      for (int64_t l = 0; l < kLanes; ++l) sum += partial[l];
    }
#pragma omp simd reduction(+ : sum)
    for (int64_t i = k; i < n; ++i) sum += static_cast<Acc>(r[i]);
    out[p] = static_cast<T>(sum / static_cast<Acc>(n));
  }
}

template <typename T>
void adaptive_avg_pool2d_typed(const Tensor& x, const Tensor& out) {
  using Acc = opmath_t<T>;
  const int64_t H = x.size(2), W = x.size(3), OH = out.size(2), OW = out.size(3);
  const T* xp = static_cast<const T*>(x.data_ptr());
  T* op = static_cast<T*>(out.data_ptr());
  if (OH == 1 && OW == 1) {
    parallel_for(0, x.size(0) * x.size(1), std::max<int64_t>(1, kGrainSize / std::max<int64_t>(H * W, 1)),
                 [&](int64_t p0, int64_t p1) { plane_means(xp, op, p0, p1, H * W); });
    return;
  }
  int64_t kh = (H + OH - 1) / std::max<int64_t>(OH, 1) + 1, kw = (W + OW - 1) / std::max<int64_t>(OW, 1) + 1;
  // Each output row's and column's input range, computed once per call rather than
  // with four integer divisions per output of every plane.
  std::vector<std::pair<int64_t, int64_t>> rows(static_cast<size_t>(OH)), cols(static_cast<size_t>(OW));
  for (int64_t oh = 0; oh < OH; ++oh) rows[static_cast<size_t>(oh)] = {adaptive_start(oh, OH, H), adaptive_end(oh, OH, H)};
  for (int64_t ow = 0; ow < OW; ++ow) cols[static_cast<size_t>(ow)] = {adaptive_start(ow, OW, W), adaptive_end(ow, OW, W)};
  for_each_plane(x.size(0) * x.size(1), work_product({OH, OW, kh, kw}), [&](int64_t p) {
    const T* in = xp + p * H * W;
    T* o = op + p * OH * OW;
    for (int64_t oh = 0; oh < OH; ++oh) {
      const auto [h0, h1] = rows[static_cast<size_t>(oh)];
      for (int64_t ow = 0; ow < OW; ++ow) {
        const auto [w0, w1] = cols[static_cast<size_t>(ow)];
        Acc sum = window_sum<Acc>(in, W, h0, h1, w0, w1);
        o[oh * OW + ow] = static_cast<T>(sum / static_cast<Acc>((h1 - h0) * (w1 - w0)));
      }
    }
  });
}

// adaptive_avg_pool2d: attr output_size (pair, resolved).
void adaptive_avg_pool2d_kernel(OpCall& call) {
  Tensor x = call.in(0).contiguous();
  const AdaptiveAvgPool2dArgs a = AdaptiveAvgPool2dArgs::from(call);
  DimVector sizes{x.size(0), x.size(1), a.output_size[0], a.output_size[1]};
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
