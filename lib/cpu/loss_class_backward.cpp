// Backward of nll_loss and cross_entropy, reading the input as [N, C, S]
// (S = 1 for [N, C] and [C] inputs) like the forward (loss_class.cpp).
//
// cross_entropy, class index k with weight w_k, smoothing eps, W = sum_c w_c,
// p = softmax(x):   d loss / d x_j = a p_j - (eps / C) w_j - (1 - eps) w_k [j == k],
// a = (1 - eps) w_k + (eps / C) W. Probabilities q, q' = (1 - eps) q + eps / C:
// d loss / d x_j = p_j sum_c w_c q'_c - w_j q'_j. Each times the position's
// scale: grad_output (reduction none), or grad_output / denominator (mean:
// the weights of the targets not ignored, or N S for probabilities).
// The softmax is recomputed from the logits (max, then exp(x - max) kept in a
// buffer while summed, then one pass that writes the gradient): no
// log_softmax tensor was saved or is materialized.
#include <cmath>

#include "cpu/logsumexp.h"  // exp_acc
#include "cpu/nn_backward_common.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/nn.h"

namespace ember::cpu {
namespace {

constexpr int64_t kMean = static_cast<int64_t>(Reduction::Mean);
constexpr int64_t kNone = static_cast<int64_t>(Reduction::None);

// [N, C, S] geometry of a class-score input ([C], [N, C] or [N, C, d...]).
struct ClassGeometry {
  int64_t N, C, S;
  int64_t positions() const { return N * S; }
};

ClassGeometry class_geometry(const Tensor& x) {
  const int64_t C = x.dim() == 1 ? x.size(0) : x.size(1);
  const int64_t N = x.dim() == 1 ? 1 : x.size(0);
  return {N, C, N * C == 0 ? 0 : x.numel() / (N * C)};
}

// Class-index targets as int64; IndexError for one outside [0, C) not ignored
// (checked here, before any parallel region). Also returns the sum of the
// weights of the targets not ignored (a mean's denominator).
Tensor checked_targets(const Tensor& target, int64_t C, int64_t ignore_index, const std::vector<double>& w,
                       const char* op, double& weight_sum) {
  Tensor t = target.to(kInt64).contiguous();
  const int64_t* tp = static_cast<const int64_t*>(t.data_ptr());
  weight_sum = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (tp[i] == ignore_index) continue;
    EMBER_CHECK_INDEX(tp[i] >= 0 && tp[i] < C, op, ": Target ", tp[i], " is out of bounds (the input has ",
                      C, " classes)");
    weight_sum += w[tp[i]];
  }
  return t;
}

// Per-position scale: g[pos * stride] (stride 0 for a reduced loss).
struct PositionScale {
  std::vector<double> g;
  int64_t stride;
  double at(int64_t pos) const { return g[static_cast<size_t>(pos * stride)]; }
};

PositionScale position_scale(const Tensor& grad, int64_t reduction, double denominator, int64_t positions) {
  PositionScale s{param_values<double>(grad, reduction == kNone ? positions : 1, 0.0), reduction == kNone ? 1 : 0};
  if (reduction == kMean) s.g[0] /= denominator;  // 0 / 0: NaN, as the forward
  return s;
}

// ---- nll_loss --------------------------------------------------------------------------------

void nll_loss_backward_kernel(OpCall& c) {
  const Tensor& x = c.in(1);
  const NllLossBackwardArgs a = NllLossBackwardArgs::from(c);
  const ClassGeometry geo = class_geometry(x);
  const std::vector<double> w = param_values<double>(c.in(3), geo.C, 1.0);
  double weight_sum = 0;
  const Tensor t = checked_targets(c.in(2), geo.C, a.ignore_index, w, "nll_loss_backward", weight_sum);
  if (c.in(4).defined()) weight_sum = param_values<double>(c.in(4), 1, 0.0)[0];
  const PositionScale scale = position_scale(c.in(0), a.reduction, weight_sum, geo.positions());
  Tensor grad = zeros(IntList(x.sizes().begin(), x.sizes().end()), TensorOptions(x.dtype()));
  const int64_t* tp = static_cast<const int64_t*>(t.data_ptr());
  EMBER_DISPATCH_FLOATING(x.dtype(), "nll_loss_backward", [&] {
    scalar_t* gp = static_cast<scalar_t*>(grad.data_ptr());
    parallel_for(0, geo.positions(), kGrainSize / 4, [&](int64_t p0, int64_t p1) {
      for (int64_t pos = p0; pos < p1; ++pos) {
        const int64_t k = tp[pos];
        if (k == a.ignore_index) continue;
        const int64_t n = pos / geo.S, s = pos % geo.S;
        gp[(n * geo.C + k) * geo.S + s] = convert<scalar_t>(-w[k] * scale.at(pos));
      }
    });
  });
  c.outputs.push_back(grad);
}

// ---- cross_entropy ---------------------------------------------------------------------------

template <typename Acc>
struct CrossEntropyArgs {
  const Acc* w;       // class weights (ones when none were given)
  const int64_t* t;   // class-index targets, or null (probabilities)
  const PositionScale* scale;
  int64_t ignore_index;
  Acc eps_c;          // label_smoothing / C
  Acc keep;           // 1 - label_smoothing
  Acc w_sum;          // sum of the class weights
};

// Rows [r0, r1) of C contiguous logits (S == 1). e: a buffer of C values
// that keeps exp(x - max) between the pass that sums it and the pass that
// writes the gradient (one exp per logit).
template <typename T>
EMBER_CLONES void ce_rows(const T* x, const T* q, T* dx, int64_t r0, int64_t r1, int64_t C,
                          const CrossEntropyArgs<opmath_t<T>>& a, opmath_t<T>* e) {
  using acc_t = opmath_t<T>;
  const acc_t* w = a.w;
  const acc_t eps_c = a.eps_c, keep = a.keep;
  for (int64_t r = r0; r < r1; ++r) {
    const T* xr = x + r * C;
    T* dr = dx + r * C;
    const int64_t k = q ? -1 : a.t[r];
    if (!q && k == a.ignore_index) {
      for (int64_t j = 0; j < C; ++j) dr[j] = convert<T>(acc_t(0));
      continue;
    }
    const acc_t g = static_cast<acc_t>(a.scale->at(r));
    acc_t m = -std::numeric_limits<acc_t>::infinity(), sum = 0;
#pragma omp simd reduction(max : m)
    for (int64_t j = 0; j < C; ++j) m = std::max(m, static_cast<acc_t>(xr[j]));
#pragma omp simd reduction(+ : sum)
    for (int64_t j = 0; j < C; ++j) {
      e[j] = exp_acc(static_cast<acc_t>(xr[j]) - m);
      sum += e[j];
    }
    const acc_t inv = acc_t(1) / sum;  // p_j = e_j / sum
    if (q) {
      const T* qr = q + r * C;
      acc_t wq = 0;  // sum_c w_c q'_c
#pragma omp simd reduction(+ : wq)
      for (int64_t j = 0; j < C; ++j) wq += w[j] * (static_cast<acc_t>(qr[j]) * keep + eps_c);
      const acc_t alpha = g * wq * inv;
#pragma omp simd
      for (int64_t j = 0; j < C; ++j)
        dr[j] = convert<T>(alpha * e[j] - g * w[j] * (static_cast<acc_t>(qr[j]) * keep + eps_c));
      continue;
    }
    const acc_t alpha = g * (keep * w[k] + eps_c * a.w_sum) * inv, beta = g * eps_c;
#pragma omp simd
    for (int64_t j = 0; j < C; ++j) dr[j] = convert<T>(alpha * e[j] - beta * w[j]);
    dr[k] = convert<T>(alpha * e[k] - beta * w[k] - g * keep * w[k]);
  }
}

constexpr int64_t kBlock = 64;  // positions handled together (vectorized across)

// Blocks [b0, b1) of kBlock positions of one sample (S > 1): class planes of S
// contiguous logits. e: a buffer of C * kBlock values (exp(x - max), as ce_rows).
template <typename T>
EMBER_CLONES void ce_blocks(const T* x, const T* q, T* dx, int64_t b0, int64_t b1, int64_t C, int64_t S,
                            const CrossEntropyArgs<opmath_t<T>>& a, opmath_t<T>* e) {
  using acc_t = opmath_t<T>;
  const int64_t per_sample = (S + kBlock - 1) / kBlock;
  acc_t m[kBlock], sum[kBlock], gs[kBlock], wq[kBlock], alpha[kBlock], beta[kBlock];
  for (int64_t b = b0; b < b1; ++b) {
    const int64_t n = b / per_sample, s0 = (b % per_sample) * kBlock;
    const int64_t len = std::min(kBlock, S - s0), base = n * C * S + s0, pos = n * S + s0;
    for (int64_t s = 0; s < len; ++s) {
      m[s] = -std::numeric_limits<acc_t>::infinity();
      sum[s] = 0;
    }
    for (int64_t c = 0; c < C; ++c) {
      const T* xc = x + base + c * S;
#pragma omp simd
      for (int64_t s = 0; s < len; ++s) m[s] = std::max(m[s], static_cast<acc_t>(xc[s]));
    }
    for (int64_t c = 0; c < C; ++c) {
      const T* xc = x + base + c * S;
      acc_t* ec = e + c * kBlock;
#pragma omp simd
      for (int64_t s = 0; s < len; ++s) {
        ec[s] = exp_acc(static_cast<acc_t>(xc[s]) - m[s]);
        sum[s] += ec[s];
      }
    }
    // dx[c, s] = alpha[s] e[c, s] - beta[s] w_c (- g keep w_k where c is the target k).
    for (int64_t s = 0; s < len; ++s) {
      const acc_t g = gs[s] = static_cast<acc_t>(a.scale->at(pos + s));
      const int64_t k = q ? -1 : a.t[pos + s];
      const bool ignored = !q && k == a.ignore_index;
      alpha[s] = ignored ? acc_t(0) : (q ? g : g * (a.keep * a.w[k] + a.eps_c * a.w_sum)) / sum[s];
      beta[s] = ignored ? acc_t(0) : g * a.eps_c;
    }
    if (q) {  // alpha = g sum_c w_c q'_c / sum; the target term -g w_c q'_c is per class
      for (int64_t s = 0; s < len; ++s) wq[s] = 0;
      for (int64_t c = 0; c < C; ++c) {
        const T* qc = q + base + c * S;
        const acc_t wc = a.w[c], keep = a.keep, eps_c = a.eps_c;
#pragma omp simd
        for (int64_t s = 0; s < len; ++s) wq[s] += wc * (static_cast<acc_t>(qc[s]) * keep + eps_c);
      }
      for (int64_t s = 0; s < len; ++s) alpha[s] *= wq[s];
    }
    for (int64_t c = 0; c < C; ++c) {
      T* dc = dx + base + c * S;
      const acc_t* ec = e + c * kBlock;
      const acc_t wc = a.w[c];
      if (q) {
        const T* qc = q + base + c * S;
        const acc_t keep = a.keep, eps_c = a.eps_c;
#pragma omp simd
        for (int64_t s = 0; s < len; ++s)
          dc[s] = convert<T>(alpha[s] * ec[s] - gs[s] * wc * (static_cast<acc_t>(qc[s]) * keep + eps_c));
      } else {
#pragma omp simd
        for (int64_t s = 0; s < len; ++s) dc[s] = convert<T>(alpha[s] * ec[s] - beta[s] * wc);
      }
    }
    if (!q)
      for (int64_t s = 0; s < len; ++s) {
        const int64_t k = a.t[pos + s];
        if (k == a.ignore_index) continue;
        dx[base + k * S + s] = convert<T>(alpha[s] * e[k * kBlock + s] - beta[s] * a.w[k] - gs[s] * a.keep * a.w[k]);
      }
  }
}

void cross_entropy_backward_kernel(OpCall& c) {
  const Tensor x = c.in(1).contiguous();
  const Tensor& target = c.in(2);
  const CrossEntropyBackwardArgs a = CrossEntropyBackwardArgs::from(c);
  const bool probs = target.is_floating_point();
  const ClassGeometry geo = class_geometry(x);
  const std::vector<double> wd = param_values<double>(c.in(3), geo.C, 1.0);
  double weight_sum = static_cast<double>(geo.positions());  // probabilities: a mean over positions
  const Tensor t = probs ? Tensor() : checked_targets(target, geo.C, a.ignore_index, wd, "cross_entropy_backward", weight_sum);
  const Tensor q = probs ? target.contiguous() : Tensor();
  const PositionScale scale = position_scale(c.in(0), a.reduction, weight_sum, geo.positions());
  Tensor dx = empty(x.sizes(), TensorOptions(x.dtype()));
  c.outputs.push_back(dx);
  if (x.numel() == 0) return;
  EMBER_DISPATCH_FLOATING(x.dtype(), "cross_entropy_backward", [&] {
    using acc_t = opmath_t<scalar_t>;
    std::vector<acc_t> w(wd.begin(), wd.end());
    double w_sum = 0;
    for (double v : wd) w_sum += v;
    const double C = static_cast<double>(geo.C);
    CrossEntropyArgs<acc_t> args{w.data(), probs ? nullptr : static_cast<const int64_t*>(t.data_ptr()), &scale,
                                 a.ignore_index, static_cast<acc_t>(a.label_smoothing / C),
                                 static_cast<acc_t>(1 - a.label_smoothing), static_cast<acc_t>(w_sum)};
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    const scalar_t* qp = probs ? static_cast<const scalar_t*>(q.data_ptr()) : nullptr;
    scalar_t* dp = static_cast<scalar_t*>(dx.data_ptr());
    if (geo.S == 1) {
      parallel_for(0, geo.N, std::max<int64_t>(1, kGrainSize / 4 / geo.C), [&](int64_t r0, int64_t r1) {
        std::vector<acc_t> e(static_cast<size_t>(geo.C));
        ce_rows(xp, qp, dp, r0, r1, geo.C, args, e.data());
      });
    } else {
      const int64_t blocks = geo.N * ((geo.S + kBlock - 1) / kBlock);
      parallel_for(0, blocks, std::max<int64_t>(1, kGrainSize / 4 / (kBlock * geo.C)), [&](int64_t b0, int64_t b1) {
        std::vector<acc_t> e(static_cast<size_t>(geo.C * kBlock));
        ce_blocks(xp, qp, dp, b0, b1, geo.C, geo.S, args, e.data());
      });
    }
  });
}

EMBER_REGISTER_KERNEL(nll_loss_backward, CPU, nll_loss_backward_kernel);
EMBER_REGISTER_KERNEL(cross_entropy_backward, CPU, cross_entropy_backward_kernel);

}  // namespace
}  // namespace ember::cpu
