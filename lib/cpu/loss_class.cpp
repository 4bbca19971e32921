// cross_entropy and nll_loss: one kernel over rows of C class scores.
// The class dim is moved last (a copy only for [N, C, d1, ...] inputs), so
// every row is contiguous: cross_entropy takes the row's logsumexp (max, then
// a vectorized sum of exp) in the same pass that reads the target's score, so
// no log_softmax tensor is materialized. Per-row losses are added in double.
#include <cmath>

#include "cpu/fast_exp.h"
#include "cpu/nn_common.h"
#include "dispatch/dispatcher.h"
#include "ember/ops/nn.h"

namespace ember::cpu {
namespace {

// The tensor as [rows, C] with the class dim (dim 1, or 0 for a 1-d input) last, contiguous.
Tensor classes_last(const Tensor& t) {
  if (t.dim() <= 2) return t.contiguous();
  return movedim(t, 1, -1).contiguous();
}

template <typename Acc>
inline Acc exp_acc(Acc v) {
  if constexpr (std::is_same_v<Acc, float>) return fast_exp(v);
  else return std::exp(v);
}

// log(sum(exp(x))) of a row, stable: max first.
template <typename T>
opmath_t<T> row_logsumexp(const T* x, int64_t n) {
  using acc_t = opmath_t<T>;
  acc_t m = -std::numeric_limits<acc_t>::infinity();
#pragma omp simd reduction(max : m)
  for (int64_t i = 0; i < n; ++i) m = std::max(m, static_cast<acc_t>(x[i]));
  if (std::isinf(m)) return m;  // all -inf (or an inf): exp would give NaN
  acc_t s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += exp_acc(static_cast<acc_t>(x[i]) - m);
  return m + std::log(s);
}

// sum_c w[c] * x[c] (and, with probabilities, * p[c]).
template <typename T>
opmath_t<T> weighted_row_sum(const T* x, const opmath_t<T>* w, int64_t n) {
  using acc_t = opmath_t<T>;
  acc_t s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += w[i] * static_cast<acc_t>(x[i]);
  return s;
}

struct ClassLossParams {
  bool log_softmax;  // cross_entropy (logits) or nll_loss (log-probabilities)
  int64_t ignore_index;
  int64_t reduction;
  double label_smoothing;
};

// Class-index targets: IndexError for one outside [0, C) that is not ignored.
void check_targets(const int64_t* t, int64_t rows, int64_t C, int64_t ignore_index, const char* op) {
  for (int64_t r = 0; r < rows; ++r)
    EMBER_CHECK_INDEX(t[r] == ignore_index || (t[r] >= 0 && t[r] < C), op, ": Target ", t[r],
                      " is out of bounds (the input has ", C, " classes)");
}

// Per-row losses (and, for class indices, the weight each row counts with in a mean).
template <typename T>
void class_index_rows(const T* x, const int64_t* t, int64_t rows, int64_t C,
                      const std::vector<opmath_t<T>>& w, const ClassLossParams& p, double* loss,
                      double* count) {
  using acc_t = opmath_t<T>;
  acc_t wsum = 0;
  for (acc_t v : w) wsum += v;
  const double eps = p.label_smoothing;
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / 4 / std::max<int64_t>(C, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t k = t[r];
      if (k == p.ignore_index) {
        loss[r] = count[r] = 0;
        continue;
      }
      const T* xr = x + r * C;
      const acc_t lse = p.log_softmax ? row_logsumexp(xr, C) : acc_t(0);
      double l = -static_cast<double>(w[k]) * (static_cast<double>(static_cast<acc_t>(xr[k])) - lse);
      if (eps > 0) {  // the uniform part: -sum_c w[c] log p_c, over C
        const double smooth = -(static_cast<double>(weighted_row_sum(xr, w.data(), C)) -
                                static_cast<double>(lse) * static_cast<double>(wsum));
        l = (1 - eps) * l + eps / static_cast<double>(C) * smooth;
      }
      loss[r] = l;
      count[r] = static_cast<double>(w[k]);
    }
  });
}

// Class-probability targets: -sum_c w[c] q[c] log p_c with q smoothed toward uniform.
template <typename T>
void class_prob_rows(const T* x, const T* q, int64_t rows, int64_t C, const std::vector<opmath_t<T>>& w,
                     const ClassLossParams& p, double* loss) {
  using acc_t = opmath_t<T>;
  const acc_t keep = static_cast<acc_t>(1 - p.label_smoothing);
  const acc_t uniform = static_cast<acc_t>(p.label_smoothing / static_cast<double>(std::max<int64_t>(C, 1)));
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / 4 / std::max<int64_t>(C, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* xr = x + r * C;
      const T* qr = q + r * C;
      const acc_t lse = row_logsumexp(xr, C);
      const acc_t* wp = w.data();
      acc_t s = 0;
#pragma omp simd reduction(+ : s)
      for (int64_t i = 0; i < C; ++i)
        s += wp[i] * (static_cast<acc_t>(qr[i]) * keep + uniform) * (static_cast<acc_t>(xr[i]) - lse);
      loss[r] = -static_cast<double>(s);
    }
  });
}

// The loss tensor: per-row values in the target's shape, or their mean / sum.
Tensor finish(const std::vector<double>& loss, const std::vector<double>& count, const DimVector& shape,
              DType dt, int64_t reduction) {
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
    if (count.empty()) denom = static_cast<double>(loss.size());
    else for (double v : count) denom += v;
    total /= denom;  // 0 / 0 (empty, or every target ignored): NaN, as PyTorch
  }
  return scalar_result(total, dt);
}

void class_loss_kernel(OpCall& c, const ClassLossParams& p, const char* op) {
  const Tensor& input = c.in(0);
  const Tensor& target = c.in(1);
  const int64_t C = input.dim() == 1 ? input.size(0) : input.size(1);
  const Tensor x = classes_last(input);
  const int64_t rows = C == 0 ? 0 : x.numel() / C;
  DimVector shape = input.sizes();  // the per-row shape: input's without the class dim
  shape.erase(shape.begin() + (input.dim() == 1 ? 0 : 1));
  std::vector<double> loss(static_cast<size_t>(rows)), count;
  const bool probs = target.is_floating_point();
  EMBER_DISPATCH_FLOATING(x.dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    const std::vector<acc_t> w = param_values<acc_t>(c.in(2), C, 1);
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    if (probs) {
      const Tensor q = classes_last(target);
      class_prob_rows(xp, static_cast<const scalar_t*>(q.data_ptr()), rows, C, w, p, loss.data());
      return;
    }
    const Tensor t = target.to(kInt64).contiguous();
    const int64_t* tp = static_cast<const int64_t*>(t.data_ptr());
    check_targets(tp, rows, C, p.ignore_index, op);
    count.resize(static_cast<size_t>(rows));
    class_index_rows(xp, tp, rows, C, w, p, loss.data(), count.data());
  });
  c.outputs.push_back(finish(loss, count, shape, input.dtype(), p.reduction));
}

void cross_entropy_kernel(OpCall& c) {
  class_loss_kernel(c, {true, c.attr(0).to_int(), c.attr(1).to_int(), c.attr(2).to_double()},
                    "cross_entropy");
}

void nll_loss_kernel(OpCall& c) {
  class_loss_kernel(c, {false, c.attr(0).to_int(), c.attr(1).to_int(), 0.0}, "nll_loss");
}

EMBER_REGISTER_KERNEL(cross_entropy, CPU, cross_entropy_kernel);
EMBER_REGISTER_KERNEL(nll_loss, CPU, nll_loss_kernel);

}  // namespace
}  // namespace ember::cpu
