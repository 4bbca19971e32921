// Backward of the element-wise losses (mse, l1, smooth_l1, huber,
// binary_cross_entropy(_with_logits)): the gradient wrt input, of the
// broadcast shape of input and target, in their (already promoted) dtype.
// A reduced loss's gradient is one value g (g / numel for a mean) folded into
// the functor, so the loop reads only input and target (vectorized when both
// are dense); reduction 'none' reads grad_output as a third operand.
// Formulas and edge cases follow PyTorch's backward kernels.
#include <cmath>

#include "cpu/loops.h"
#include "cpu/nn_backward_common.h"
#include "cpu/vec_math.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/nn.h"

namespace ember::cpu {
namespace {

constexpr int64_t kNone = static_cast<int64_t>(Reduction::None);
constexpr int64_t kMean = static_cast<int64_t>(Reduction::Mean);

// The factor of a reduced loss's gradient: g, or g / numel for a mean.
double reduced_factor(const Tensor& grad, int64_t reduction, int64_t numel) {
  const double g = param_values<double>(grad, 1, 0.0)[0];
  return reduction == kMean ? g / static_cast<double>(numel) : g;
}

// out[i] = g[i] * d(x[i], t[i]) with d a generic functor (acc, acc) -> acc.
template <typename F>
void pair_backward(OpCall& c, const char* op, int64_t reduction, const F& d) {
  const Tensor &grad = c.in(0), &x = c.in(1), &t = c.in(2);
  Tensor out = empty(broadcast_shapes(x.sizes(), t.sizes(), op), TensorOptions(x.dtype()));
  EMBER_DISPATCH_FLOATING(x.dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    if (reduction == kNone) {
      const Tensor g = grad.to(x.dtype());
      cpu_kernel(out, {&g, &x, &t}, [=](scalar_t gi, scalar_t xi, scalar_t ti) -> scalar_t {
        return convert<scalar_t>(static_cast<acc_t>(gi) * d(static_cast<acc_t>(xi), static_cast<acc_t>(ti)));
      });
      return;
    }
    const acc_t f = static_cast<acc_t>(reduced_factor(grad, reduction, out.numel()));
    cpu_kernel(out, {&x, &t}, [=](scalar_t xi, scalar_t ti) -> scalar_t {
      return convert<scalar_t>(f * d(static_cast<acc_t>(xi), static_cast<acc_t>(ti)));
    });
  });
  c.outputs.push_back(out);
}

// sign(z): 0 at 0, NaN stays NaN (as torch.sign).
template <typename Acc>
inline Acc sign_of(Acc z) {
  const Acc sign = static_cast<Acc>((Acc(0) < z) - (z < Acc(0)));
  return z != z ? z : sign;
}

void mse_loss_backward_kernel(OpCall& c) {
  const MseLossBackwardArgs a = MseLossBackwardArgs::from(c);
  pair_backward(c, "mse_loss_backward", a.reduction,
                [](auto x, auto t) { return decltype(x)(2) * (x - t); });
}

void l1_loss_backward_kernel(OpCall& c) {
  const L1LossBackwardArgs a = L1LossBackwardArgs::from(c);
  pair_backward(c, "l1_loss_backward", a.reduction, [](auto x, auto t) { return sign_of(x - t); });
}

void smooth_l1_loss_backward_kernel(OpCall& c) {
  const SmoothL1LossBackwardArgs a = SmoothL1LossBackwardArgs::from(c);
  pair_backward(c, "smooth_l1_loss_backward", a.reduction, [beta = a.beta](auto x, auto t) {
    using acc_t = decltype(x);
    const acc_t b = static_cast<acc_t>(beta), z = x - t;
    // beta 0 is l1_loss (F.smooth_l1_loss calls it): sign(z), 0 at a tie.
    if (b == acc_t(0)) return sign_of(z);
    return z <= -b ? acc_t(-1) : z >= b ? acc_t(1) : z / b;
  });
}

void huber_loss_backward_kernel(OpCall& c) {
  const HuberLossBackwardArgs a = HuberLossBackwardArgs::from(c);
  pair_backward(c, "huber_loss_backward", a.reduction, [delta = a.delta](auto x, auto t) {
    using acc_t = decltype(x);
    const acc_t d = static_cast<acc_t>(delta), z = x - t;
    return z <= -d ? -d : z >= d ? d : z;
  });
}

// d/dx of -(t log x + (1 - t) log(1 - x)), the denominator clamped as
// PyTorch's: at 1e-12 rounded to float, also in double.
template <typename Acc>
inline Acc bce_grad(Acc x, Acc t) {
  return (x - t) / std::max((Acc(1) - x) * x, static_cast<Acc>(1e-12f));
}

template <typename Acc>
inline Acc sigmoid(Acc x) {
  if constexpr (std::is_same_v<Acc, float>) return 1.0f / (1.0f + fast_exp(-x));
  else return 1.0 / (1.0 + std::exp(-x));
}

// A 0-dim tensor of 1 in dt: an absent weight, broadcast by cpu_kernel.
Tensor ones_scalar(DType dt) { return full({}, 1, TensorOptions(dt)); }

void binary_cross_entropy_backward_kernel(OpCall& c) {
  const BinaryCrossEntropyBackwardArgs a = BinaryCrossEntropyBackwardArgs::from(c);
  if (!c.in(3).defined()) {
    pair_backward(c, "binary_cross_entropy_backward", a.reduction,
                  [](auto x, auto t) { return bce_grad(x, t); });
    return;
  }
  const Tensor &grad = c.in(0), &x = c.in(1), &t = c.in(2), &w = c.in(3);
  Tensor out = empty(x.sizes(), TensorOptions(x.dtype()));
  EMBER_DISPATCH_FLOATING(x.dtype(), "binary_cross_entropy_backward", [&] {
    using acc_t = opmath_t<scalar_t>;
    const Tensor g = a.reduction == kNone ? grad.to(x.dtype()) : ones_scalar(x.dtype());
    const acc_t f = a.reduction == kNone ? acc_t(1) : static_cast<acc_t>(reduced_factor(grad, a.reduction, x.numel()));
    cpu_kernel(out, {&g, &x, &t, &w}, [f](scalar_t gi, scalar_t xi, scalar_t ti, scalar_t wi) -> scalar_t {
      return convert<scalar_t>(f * static_cast<acc_t>(gi) * static_cast<acc_t>(wi) *
                               bce_grad(static_cast<acc_t>(xi), static_cast<acc_t>(ti)));
    });
  });
  c.outputs.push_back(out);
}

void binary_cross_entropy_with_logits_backward_kernel(OpCall& c) {
  const BinaryCrossEntropyWithLogitsBackwardArgs a = BinaryCrossEntropyWithLogitsBackwardArgs::from(c);
  if (!c.in(3).defined() && !c.in(4).defined()) {  // the common case
    pair_backward(c, "binary_cross_entropy_with_logits_backward", a.reduction,
                  [](auto x, auto t) { return sigmoid(x) - t; });
    return;
  }
  const Tensor &grad = c.in(0), &x = c.in(1), &t = c.in(2);
  Tensor out = empty(x.sizes(), TensorOptions(x.dtype()));
  EMBER_DISPATCH_FLOATING(x.dtype(), "binary_cross_entropy_with_logits_backward", [&] {
    using acc_t = opmath_t<scalar_t>;
    // A reduced loss: grad_output is folded into f and g is a broadcast 1.
    const Tensor g = a.reduction == kNone ? grad.to(x.dtype()) : ones_scalar(x.dtype());
    const acc_t f = a.reduction == kNone ? acc_t(1) : static_cast<acc_t>(reduced_factor(grad, a.reduction, x.numel()));
    const Tensor w = c.in(3).defined() ? c.in(3) : ones_scalar(x.dtype());
    const Tensor pw = c.in(4).defined() ? c.in(4) : ones_scalar(x.dtype());
    cpu_kernel(out, {&g, &x, &t, &w, &pw},
               [f](scalar_t gi, scalar_t xi, scalar_t ti, scalar_t wi, scalar_t pwi) -> scalar_t {
      const acc_t tv = static_cast<acc_t>(ti), pt = static_cast<acc_t>(pwi) * tv;
      // ((pw t + 1 - t) sigmoid(x) - pw t) w g, as PyTorch.
      const acc_t d = (pt + 1 - tv) * sigmoid(static_cast<acc_t>(xi)) - pt;
      return convert<scalar_t>(f * d * static_cast<acc_t>(wi) * static_cast<acc_t>(gi));
    });
  });
  c.outputs.push_back(out);
}

EMBER_REGISTER_KERNEL(mse_loss_backward, CPU, mse_loss_backward_kernel);
EMBER_REGISTER_KERNEL(l1_loss_backward, CPU, l1_loss_backward_kernel);
EMBER_REGISTER_KERNEL(smooth_l1_loss_backward, CPU, smooth_l1_loss_backward_kernel);
EMBER_REGISTER_KERNEL(huber_loss_backward, CPU, huber_loss_backward_kernel);
EMBER_REGISTER_KERNEL(binary_cross_entropy_backward, CPU, binary_cross_entropy_backward_kernel);
EMBER_REGISTER_KERNEL(binary_cross_entropy_with_logits_backward, CPU,
                      binary_cross_entropy_with_logits_backward_kernel);

}  // namespace
}  // namespace ember::cpu
