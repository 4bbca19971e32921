// Element-wise losses: mse, l1, smooth_l1, huber, binary_cross_entropy(_with_logits).
// The op functions have already cast the operands to one floating dtype.
// reduction 'none' runs cpu_kernel into a tensor of the broadcast shape; a
// mean or sum of two same-shaped contiguous operands is fused into one pass
// (vectorized blocks in opmath, blocks added in double), anything else goes
// through the 'none' tensor.
#include <atomic>
#include <cmath>

#include "cpu/loops.h"
#include "cpu/nn_common.h"
#include "cpu/vec_math.h"
#include "dispatch/args/nn.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "ember/ops/nn.h"

namespace ember::cpu {
namespace {

constexpr int64_t kNone = static_cast<int64_t>(Reduction::None);

// sum of f(a[i], b[i]) over n contiguous pairs: vectorized blocks in opmath, added in double.
// (Outside the dtype-dispatch macro: a #pragma cannot sit in a macro argument.)
template <typename T, typename F>
EMBER_CLONES double fused_sum(const T* a, const T* b, int64_t n, const F& f) {
  using acc_t = opmath_t<T>;
  double total = 0;
  for (int64_t blk = 0; blk < n; blk += 1024) {
    const int64_t e = std::min(n, blk + 1024);
    acc_t part = 0;
#pragma omp simd reduction(+ : part)
    for (int64_t i = blk; i < e; ++i) part += f(static_cast<acc_t>(a[i]), static_cast<acc_t>(b[i]));
    total += part;
  }
  return total;
}

// F is a generic functor (acc a, acc b) -> acc, the per-element loss.
template <typename F>
void pair_loss(OpCall& c, const char* op, int64_t reduction, const F& f) {
  const Tensor& a = c.in(0);
  const Tensor& b = c.in(1);
  EMBER_DISPATCH_FLOATING(a.dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    const bool fused = reduction != kNone && a.sizes() == b.sizes() && a.is_contiguous() &&
                       b.is_contiguous();
    if (fused) {
      const scalar_t* ap = static_cast<const scalar_t*>(a.data_ptr());
      const scalar_t* bp = static_cast<const scalar_t*>(b.data_ptr());
      double s = parallel_sum(a.numel(), kGrainSize, [&](int64_t lo, int64_t hi) {
        return fused_sum(ap + lo, bp + lo, hi - lo, f);
      });
      if (reduction == static_cast<int64_t>(Reduction::Mean)) s /= static_cast<double>(a.numel());
      c.outputs.push_back(scalar_result(s, a.dtype()));
      return;
    }
    Tensor out = empty(broadcast_shapes(a.sizes(), b.sizes(), op), TensorOptions(a.dtype()));
    cpu_kernel(out, {&a, &b}, [=](scalar_t x, scalar_t y) -> scalar_t {
      return convert<scalar_t>(f(static_cast<acc_t>(x), static_cast<acc_t>(y)));
    });
    c.outputs.push_back(reduction == kNone ? out : reduce_losses(out, reduction));
  });
}

void mse_loss_kernel(OpCall& c) {
  const MseLossArgs a = MseLossArgs::from(c);
  pair_loss(c, "mse_loss", a.reduction, [](auto x, auto y) {
    auto d = x - y;
    return d * d;
  });
}

void l1_loss_kernel(OpCall& c) {
  const L1LossArgs a = L1LossArgs::from(c);
  pair_loss(c, "l1_loss", a.reduction, [](auto x, auto y) { return std::abs(x - y); });
}

void smooth_l1_loss_kernel(OpCall& c) {
  const SmoothL1LossArgs a = SmoothL1LossArgs::from(c);
  pair_loss(c, "smooth_l1_loss", a.reduction, [beta = a.beta](auto x, auto y) {
    using acc_t = decltype(x);
    const acc_t b = static_cast<acc_t>(beta), z = std::abs(x - y);
    // beta == 0 is l1_loss (and avoids 0 / 0).
    return z < b ? acc_t(0.5) * z * z / b : z - acc_t(0.5) * b;
  });
}

void huber_loss_kernel(OpCall& c) {
  const HuberLossArgs a = HuberLossArgs::from(c);
  pair_loss(c, "huber_loss", a.reduction, [delta = a.delta](auto x, auto y) {
    using acc_t = decltype(x);
    const acc_t d = static_cast<acc_t>(delta), z = std::abs(x - y);
    return z < d ? acc_t(0.5) * z * z : d * (z - acc_t(0.5) * d);
  });
}

// A 0-dim tensor of 1 in dt: an absent weight, broadcast by cpu_kernel.
Tensor ones_scalar(DType dt) { return full({}, 1, TensorOptions(dt)); }

void binary_cross_entropy_kernel(OpCall& c) {
  const Tensor& x = c.in(0);
  const Tensor& t = c.in(1);
  const Tensor w = c.in(2).defined() ? c.in(2) : ones_scalar(x.dtype());
  const BinaryCrossEntropyArgs a = BinaryCrossEntropyArgs::from(c);
  Tensor out = empty(x.sizes(), TensorOptions(x.dtype()));
  std::atomic<bool> out_of_range{false};
  EMBER_DISPATCH_FLOATING(x.dtype(), "binary_cross_entropy", [&] {
    using acc_t = opmath_t<scalar_t>;
    cpu_kernel(out, {&x, &t, &w}, [&out_of_range](scalar_t xi, scalar_t ti, scalar_t wi) -> scalar_t {
      const acc_t p = static_cast<acc_t>(xi), q = static_cast<acc_t>(ti);
      if (!(p >= 0 && p <= 1)) out_of_range.store(true, std::memory_order_relaxed);
      // log terms clamped to >= -100 so that p = 0 or 1 gives a finite loss (as PyTorch).
      const acc_t log_p = std::max(static_cast<acc_t>(std::log(p)), acc_t(-100));
      const acc_t log_1mp = std::max(static_cast<acc_t>(std::log1p(-p)), acc_t(-100));
      return convert<scalar_t>(static_cast<acc_t>(wi) * ((q - 1) * log_1mp - q * log_p));
    });
  });
  EMBER_CHECK(!out_of_range.load(), "binary_cross_entropy: all elements of input should be between 0 and 1");
  c.outputs.push_back(a.reduction == kNone ? out : reduce_losses(out, a.reduction));
}

// (1 - t) x - lw * log_sigmoid(x), lw = 1 + (pos_weight - 1) t, with
// -log_sigmoid(x) = max(-x, 0) + log1p(exp(-|x|)): no overflow for any x.
template <typename Acc>
inline Acc bce_logits(Acc x, Acc t, Acc pw) {
  Acc softplus;  // log1p(exp(-|x|)), in [0, log 2]
  if constexpr (std::is_same_v<Acc, float>) softplus = fast_log1p(fast_exp(-std::abs(x)));
  else softplus = std::log1p(std::exp(-std::abs(x)));
  const Acc neg_log_sigmoid = std::max(-x, Acc(0)) + softplus;
  return (1 - t) * x + (1 + (pw - 1) * t) * neg_log_sigmoid;
}

void binary_cross_entropy_with_logits_kernel(OpCall& c) {
  const Tensor& x = c.in(0);
  const Tensor& t = c.in(1);
  const BinaryCrossEntropyWithLogitsArgs a = BinaryCrossEntropyWithLogitsArgs::from(c);
  if (!c.in(2).defined() && !c.in(3).defined()) {  // the common case: fused when reduced
    pair_loss(c, "binary_cross_entropy_with_logits", a.reduction,
              [](auto xi, auto ti) { return bce_logits(xi, ti, decltype(xi)(1)); });
    return;
  }
  Tensor out = empty(x.sizes(), TensorOptions(x.dtype()));
  EMBER_DISPATCH_FLOATING(x.dtype(), "binary_cross_entropy_with_logits", [&] {
    using acc_t = opmath_t<scalar_t>;
    const Tensor w = c.in(2).defined() ? c.in(2) : ones_scalar(x.dtype());
    const Tensor pw = c.in(3).defined() ? c.in(3) : ones_scalar(x.dtype());
    cpu_kernel(out, {&x, &t, &w, &pw}, [](scalar_t xi, scalar_t ti, scalar_t wi, scalar_t pwi) -> scalar_t {
      const acc_t l = bce_logits(static_cast<acc_t>(xi), static_cast<acc_t>(ti), static_cast<acc_t>(pwi));
      return convert<scalar_t>(static_cast<acc_t>(wi) * l);
    });
  });
  c.outputs.push_back(a.reduction == kNone ? out : reduce_losses(out, a.reduction));
}

EMBER_REGISTER_KERNEL(mse_loss, CPU, mse_loss_kernel);
EMBER_REGISTER_KERNEL(l1_loss, CPU, l1_loss_kernel);
EMBER_REGISTER_KERNEL(smooth_l1_loss, CPU, smooth_l1_loss_kernel);
EMBER_REGISTER_KERNEL(huber_loss, CPU, huber_loss_kernel);
EMBER_REGISTER_KERNEL(binary_cross_entropy, CPU, binary_cross_entropy_kernel);
EMBER_REGISTER_KERNEL(binary_cross_entropy_with_logits, CPU, binary_cross_entropy_with_logits_kernel);

}  // namespace
}  // namespace ember::cpu
