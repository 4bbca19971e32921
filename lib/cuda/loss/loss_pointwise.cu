// CUDA kernels of the element-wise losses: mse, l1, smooth_l1, huber,
// binary_cross_entropy(_with_logits). The op functions have already cast the
// operands to one floating dtype. The per-element losses are computed by
// gpu_kernel (any strides, broadcast) into a tensor of the broadcast shape,
// then reduced (mean / sum) in double (loss_reduce.cuh). Formulas as
// cpu/loss_pointwise.cpp.
#include <cmath>

#include "cuda/device_error.h"
#include "cuda/loops.cuh"
#include "cuda/loss/loss_reduce.cuh"
#include "dispatch/args/nn.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "ember/ops/views.h"

namespace ember::cuda::loss {
namespace {

// f: an EMBER_LAMBDA (acc x, acc t) -> acc, the per-element loss (generic in acc).
template <typename F>
void pair_loss(OpCall& c, const char* op, int64_t reduction, const F& f) {
  const Tensor& a = c.in(0);
  const Tensor& b = c.in(1);
  Tensor out = empty(broadcast_shapes(a.sizes(), b.sizes(), op), TensorOptions(a.dtype()).device(a.device()));
  EMBER_DISPATCH_FLOATING(a.dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    gpu_kernel<scalar_t, scalar_t, scalar_t>(out, {&a, &b}, [f] EMBER_LAMBDA(acc_t x, acc_t y) { return f(x, y); });
  });
  c.outputs.push_back(reduction == kNone ? out : reduce_losses(out, reduction));
}

struct Mse {
  template <typename A>
  EMBER_HOST_DEVICE A operator()(A x, A y) const { A d = x - y; return d * d; }
};
struct L1 {
  template <typename A>
  EMBER_HOST_DEVICE A operator()(A x, A y) const { return fabs(x - y); }
};
struct SmoothL1 {
  double beta;
  template <typename A>
  EMBER_HOST_DEVICE A operator()(A x, A y) const {
    const A b = static_cast<A>(beta), z = fabs(x - y);
    return z < b ? A(0.5) * z * z / b : z - A(0.5) * b;  // beta == 0: l1 (z < 0 is never true)
  }
};
struct Huber {
  double delta;
  template <typename A>
  EMBER_HOST_DEVICE A operator()(A x, A y) const {
    const A d = static_cast<A>(delta), z = fabs(x - y);
    return z < d ? A(0.5) * z * z : d * (z - A(0.5) * d);
  }
};

// (1 - t) x + (1 + (pw - 1) t) (max(-x, 0) + log1p(exp(-|x|))): no overflow for any x.
template <typename A>
EMBER_HOST_DEVICE inline A bce_logits(A x, A t, A pw) {
  const A neg_log_sigmoid = (x < A(0) ? -x : A(0)) + log1p(exp(-fabs(x)));
  return (A(1) - t) * x + (A(1) + (pw - A(1)) * t) * neg_log_sigmoid;
}
struct BceLogits {
  template <typename A>
  EMBER_HOST_DEVICE A operator()(A x, A t) const { return bce_logits(x, t, A(1)); }
};

void mse_loss_kernel(OpCall& c) { pair_loss(c, "mse_loss", MseLossArgs::from(c).reduction, Mse{}); }
void l1_loss_kernel(OpCall& c) { pair_loss(c, "l1_loss", L1LossArgs::from(c).reduction, L1{}); }
void smooth_l1_loss_kernel(OpCall& c) {
  const SmoothL1LossArgs a = SmoothL1LossArgs::from(c);
  pair_loss(c, "smooth_l1_loss", a.reduction, SmoothL1{a.beta});
}
void huber_loss_kernel(OpCall& c) {
  const HuberLossArgs a = HuberLossArgs::from(c);
  pair_loss(c, "huber_loss", a.reduction, Huber{a.delta});
}

// An input outside [0, 1] (or NaN) is reported (ValueError at the next synchronization).
void binary_cross_entropy_kernel(OpCall& c) {
  const Tensor& x = c.in(0);
  const Tensor& t = c.in(1);
  const Tensor w = c.in(2).defined() ? c.in(2) : ones_scalar(x);
  const BinaryCrossEntropyArgs a = BinaryCrossEntropyArgs::from(c);
  Tensor out = empty(x.sizes(), TensorOptions(x.dtype()).device(x.device()));
  const DeviceErrorReporter err = device_error_reporter(x.device().index, opid::binary_cross_entropy);
  EMBER_DISPATCH_FLOATING(x.dtype(), "binary_cross_entropy", [&] {
    using A = opmath_t<scalar_t>;
    gpu_kernel<scalar_t, scalar_t, scalar_t, scalar_t>(out, {&x, &t, &w}, [err] EMBER_LAMBDA(A p, A q, A wi) {
#if defined(__CUDA_ARCH__)
      if (!(p >= A(0) && p <= A(1))) err.report(DeviceErrorKind::InvalidProbability, 0, 1);
#endif
      // log terms clamped to >= -100 so that p = 0 or 1 gives a finite loss (as PyTorch).
      const A log_p = fmax(static_cast<A>(log(p)), A(-100));
      const A log_1mp = fmax(static_cast<A>(log1p(-p)), A(-100));
      return wi * ((q - A(1)) * log_1mp - q * log_p);
    });
  });
  c.outputs.push_back(a.reduction == kNone ? out : reduce_losses(out, a.reduction));
}

void binary_cross_entropy_with_logits_kernel(OpCall& c) {
  const Tensor& x = c.in(0);
  const BinaryCrossEntropyWithLogitsArgs a = BinaryCrossEntropyWithLogitsArgs::from(c);
  if (!c.in(2).defined() && !c.in(3).defined()) {
    pair_loss(c, "binary_cross_entropy_with_logits", a.reduction, BceLogits{});
    return;
  }
  const Tensor& t = c.in(1);
  const Tensor w = c.in(2).defined() ? c.in(2) : ones_scalar(x);
  const Tensor pw = c.in(3).defined() ? c.in(3) : ones_scalar(x);
  Tensor out = empty(x.sizes(), TensorOptions(x.dtype()).device(x.device()));
  EMBER_DISPATCH_FLOATING(x.dtype(), "binary_cross_entropy_with_logits", [&] {
    using A = opmath_t<scalar_t>;
    gpu_kernel<scalar_t, scalar_t, scalar_t, scalar_t, scalar_t>(
        out, {&x, &t, &w, &pw}, [] EMBER_LAMBDA(A xi, A ti, A wi, A pwi) { return wi * bce_logits(xi, ti, pwi); });
  });
  c.outputs.push_back(a.reduction == kNone ? out : reduce_losses(out, a.reduction));
}

EMBER_REGISTER_KERNEL(mse_loss, CUDA, mse_loss_kernel);
EMBER_REGISTER_KERNEL(l1_loss, CUDA, l1_loss_kernel);
EMBER_REGISTER_KERNEL(smooth_l1_loss, CUDA, smooth_l1_loss_kernel);
EMBER_REGISTER_KERNEL(huber_loss, CUDA, huber_loss_kernel);
EMBER_REGISTER_KERNEL(binary_cross_entropy, CUDA, binary_cross_entropy_kernel);
EMBER_REGISTER_KERNEL(binary_cross_entropy_with_logits, CUDA, binary_cross_entropy_with_logits_kernel);

}  // namespace
}  // namespace ember::cuda::loss
