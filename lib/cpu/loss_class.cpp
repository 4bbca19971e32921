// cross_entropy and nll_loss: one kernel for both, reading the input as
// [N, C, S] (S = 1 for [N, C] and [C] inputs). cross_entropy takes each
// position's logsumexp (max, then a vectorized sum of exp) in the same pass
// that reads the target's score, so no log_softmax tensor is materialized.
//   S == 1: a position's C scores are contiguous: vectorize over classes.
//   S > 1:  a class's scores are contiguous: vectorize over a block of positions.
// Per-position losses are added in double.
#include <cmath>

#include "cpu/logsumexp.h"
#include "cpu/nn_common.h"
#include "dispatch/args/nn.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "ember/ops/nn.h"

namespace ember::cpu {
namespace {

struct ClassLossParams {
  bool log_softmax;  // cross_entropy (logits) or nll_loss (log-probabilities)
  int64_t ignore_index;
  int64_t reduction;
  double label_smoothing;
};

// What one position's loss needs besides its scores.
template <typename Acc>
struct ClassLossArgs {
  const Acc* w;          // class weights (ones when none were given)
  const int64_t* t;      // class-index targets, or null
  ClassLossParams p;
  Acc keep, uniform;     // probability targets: q' = q keep + uniform (label smoothing)
};

// The loss of a position with class-index target k (not ignored): the nll
// part, mixed with the uniform part when smoothing. `smooth_sum` is
// sum_c w[c] (x[c] - lse), only read when smoothing.
inline double index_loss(double w_k, double logp_k, double smooth_sum, double eps, int64_t C) {
  const double l = -w_k * logp_k;
  return eps > 0 ? (1 - eps) * l - eps / static_cast<double>(C) * smooth_sum : l;
}

// ---- S == 1: rows of C contiguous scores --------------------------------------------------

// sum_c w[c] (q[c] keep + uniform) (x[c] - lse); q null: sum_c w[c] (x[c] - lse).
template <typename T>
inline opmath_t<T> weighted_logp_sum(const T* x, const T* q, opmath_t<T> lse,
                                     const ClassLossArgs<opmath_t<T>>& a, int64_t C) {
  using acc_t = opmath_t<T>;
  const acc_t* w = a.w;  // locals, so the loops do not reload them (vectorization)
  const acc_t keep = a.keep, uniform = a.uniform;
  acc_t s = 0;
  if (q) {
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < C; ++i)
      s += w[i] * (static_cast<acc_t>(q[i]) * keep + uniform) * (static_cast<acc_t>(x[i]) - lse);
  } else {
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < C; ++i) s += w[i] * (static_cast<acc_t>(x[i]) - lse);
  }
  return s;
}

// Losses of rows [r0, r1), and the weight each counts with in a mean (0 if ignored).
template <typename T>
EMBER_CLONES void row_chunk(const T* x, const T* q, int64_t r0, int64_t r1, int64_t C,
                            const ClassLossArgs<opmath_t<T>>& a, double* loss, double* count) {
  using acc_t = opmath_t<T>;
  for (int64_t r = r0; r < r1; ++r) {
    const T* xr = x + r * C;
    if (q) {
      loss[r] = -static_cast<double>(weighted_logp_sum(xr, q + r * C, row_logsumexp(xr, C), a, C));
      continue;
    }
    const int64_t k = a.t[r];
    if (k == a.p.ignore_index) {
      loss[r] = count[r] = 0;
      continue;
    }
    const acc_t lse = a.p.log_softmax ? row_logsumexp(xr, C) : acc_t(0);
    const double smooth = a.p.label_smoothing > 0 ? weighted_logp_sum<T>(xr, nullptr, lse, a, C) : 0.0;
    loss[r] = index_loss(a.w[k], static_cast<acc_t>(xr[k]) - lse, smooth, a.p.label_smoothing, C);
    count[r] = a.w[k];
  }
}

// ---- S > 1: class planes of S contiguous positions ------------------------------------------

constexpr int64_t kBlock = 64;  // positions handled together (vectorized across)

// Losses of the positions of blocks [b0, b1); block b covers sample b / blocks_per_sample.
template <typename T>
EMBER_CLONES void spatial_chunk(const T* x, const T* q, int64_t b0, int64_t b1, int64_t C, int64_t S,
                                const ClassLossArgs<opmath_t<T>>& a, double* loss, double* count) {
  using acc_t = opmath_t<T>;
  const int64_t per_sample = (S + kBlock - 1) / kBlock;
  acc_t m[kBlock], lse[kBlock], acc[kBlock];
  for (int64_t b = b0; b < b1; ++b) {
    const int64_t n = b / per_sample, s0 = (b % per_sample) * kBlock;
    const int64_t len = std::min(kBlock, S - s0);
    const T* xb = x + n * C * S + s0;
    const T* qb = q ? q + n * C * S + s0 : nullptr;
    const int64_t pos = n * S + s0;  // index of the block's first loss
    for (int64_t s = 0; s < len; ++s) lse[s] = 0;
    if (a.p.log_softmax) {
      for (int64_t s = 0; s < len; ++s) m[s] = -std::numeric_limits<acc_t>::infinity();
      for (int64_t c = 0; c < C; ++c) {
        const T* xc = xb + c * S;
#pragma omp simd
        for (int64_t s = 0; s < len; ++s) m[s] = std::max(m[s], static_cast<acc_t>(xc[s]));
      }
      for (int64_t c = 0; c < C; ++c) {
        const T* xc = xb + c * S;
#pragma omp simd
        for (int64_t s = 0; s < len; ++s) lse[s] += exp_acc(static_cast<acc_t>(xc[s]) - m[s]);
      }
      for (int64_t s = 0; s < len; ++s) lse[s] = std::isinf(m[s]) ? m[s] : m[s] + std::log(lse[s]);
    }
    const bool weighted_sum = qb || a.p.label_smoothing > 0;
    if (weighted_sum) {
      for (int64_t s = 0; s < len; ++s) acc[s] = 0;
      for (int64_t c = 0; c < C; ++c) {
        const T* xc = xb + c * S;
        const acc_t wc = a.w[c], keep = a.keep, uniform = a.uniform;
        if (qb) {
          const T* qc = qb + c * S;
#pragma omp simd
          for (int64_t s = 0; s < len; ++s)
            acc[s] += wc * (static_cast<acc_t>(qc[s]) * keep + uniform) * (static_cast<acc_t>(xc[s]) - lse[s]);
        } else {
#pragma omp simd
          for (int64_t s = 0; s < len; ++s) acc[s] += wc * (static_cast<acc_t>(xc[s]) - lse[s]);
        }
      }
    }
    for (int64_t s = 0; s < len; ++s) {
      if (qb) {
        loss[pos + s] = -static_cast<double>(acc[s]);
        continue;
      }
      const int64_t k = a.t[pos + s];
      if (k == a.p.ignore_index) {
        loss[pos + s] = count[pos + s] = 0;
        continue;
      }
      const acc_t logp = static_cast<acc_t>(xb[k * S + s]) - lse[s];
      loss[pos + s] = index_loss(a.w[k], logp, weighted_sum ? acc[s] : 0.0, a.p.label_smoothing, C);
      count[pos + s] = a.w[k];
    }
  }
}

// ---- the kernel -------------------------------------------------------------------------------

// Class-index targets: IndexError for one outside [0, C) that is not ignored.
void check_targets(const int64_t* t, int64_t n, int64_t C, int64_t ignore_index, const char* op) {
  for (int64_t r = 0; r < n; ++r)
    EMBER_CHECK_INDEX(t[r] == ignore_index || (t[r] >= 0 && t[r] < C), op, ": Target ", t[r],
                      " is out of bounds (the input has ", C, " classes)");
}

// The loss tensor: per-position values in the target's shape, or their mean / sum.
Tensor finish(const std::vector<double>& loss, const std::vector<double>& count, bool by_count,
              const DimVector& shape, DType dt, int64_t reduction) {
  if (reduction == static_cast<int64_t>(Reduction::None)) {
    Tensor out = empty(shape, TensorOptions(dt));
    EMBER_DISPATCH_FLOATING(dt, "loss", [&] {
      scalar_t* o = static_cast<scalar_t*>(out.data_ptr());
      for (size_t i = 0; i < loss.size(); ++i) o[i] = convert<scalar_t>(loss[i]);
    });
    return out;
  }
  double total = 0, denom = 0;
  for (double v : loss) total += v;
  if (reduction == static_cast<int64_t>(Reduction::Mean)) {
    if (by_count) for (double v : count) denom += v;
    else denom = static_cast<double>(loss.size());
    total /= denom;  // 0 / 0 (empty, or every target ignored): NaN, as PyTorch
  }
  return scalar_result(total, dt);
}

void class_loss_kernel(OpCall& c, const ClassLossParams& p, const char* op) {
  const Tensor x = c.in(0).contiguous();
  const Tensor& target = c.in(1);
  const bool probs = target.is_floating_point();
  const int64_t C = x.dim() == 1 ? x.size(0) : x.size(1);
  const int64_t N = x.dim() == 1 ? 1 : x.size(0);
  const int64_t S = N * C == 0 ? 0 : x.numel() / (N * C);
  DimVector shape = x.sizes();  // per-position shape: the input's without the class dim
  shape.erase(shape.begin() + (x.dim() == 1 ? 0 : 1));
  const int64_t positions = N * S;
  std::vector<double> loss(static_cast<size_t>(positions)), count(static_cast<size_t>(positions));
  EMBER_DISPATCH_FLOATING(x.dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    const std::vector<acc_t> w = param_values<acc_t>(c.in(2), C, 1);
    const Tensor q = probs ? target.contiguous() : Tensor();
    const Tensor t = probs ? Tensor() : target.to(kInt64).contiguous();
    ClassLossArgs<acc_t> args{w.data(), nullptr, p, static_cast<acc_t>(1 - p.label_smoothing),
                              static_cast<acc_t>(p.label_smoothing / static_cast<double>(std::max<int64_t>(C, 1)))};
    if (!probs) {
      args.t = static_cast<const int64_t*>(t.data_ptr());
      check_targets(args.t, positions, C, p.ignore_index, op);
    }
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    const scalar_t* qp = probs ? static_cast<const scalar_t*>(q.data_ptr()) : nullptr;
    if (S == 1) {
      parallel_for(0, N, std::max<int64_t>(1, kGrainSize / 2 / std::max<int64_t>(C, 1)), [&](int64_t r0, int64_t r1) {
        row_chunk(xp, qp, r0, r1, C, args, loss.data(), count.data());
      });
    } else {
      const int64_t blocks = N * ((S + kBlock - 1) / kBlock);
      parallel_for(0, blocks, std::max<int64_t>(1, kGrainSize / 2 / (kBlock * std::max<int64_t>(C, 1))),
                   [&](int64_t b0, int64_t b1) {
        spatial_chunk(xp, qp, b0, b1, C, S, args, loss.data(), count.data());
      });
    }
  });
  c.outputs.push_back(finish(loss, count, !probs, shape, x.dtype(), p.reduction));
}

void cross_entropy_kernel(OpCall& c) {
  const CrossEntropyArgs a = CrossEntropyArgs::from(c);
  class_loss_kernel(c, {true, a.ignore_index, a.reduction, a.label_smoothing}, "cross_entropy");
}

void nll_loss_kernel(OpCall& c) {
  const NllLossArgs a = NllLossArgs::from(c);
  class_loss_kernel(c, {false, a.ignore_index, a.reduction, 0.0}, "nll_loss");
}

EMBER_REGISTER_KERNEL(cross_entropy, CPU, cross_entropy_kernel);
EMBER_REGISTER_KERNEL(nll_loss, CPU, nll_loss_kernel);

}  // namespace
}  // namespace ember::cpu
