// CUDA kernels of the backward of the element-wise losses (mse, l1, smooth_l1,
// huber, binary_cross_entropy(_with_logits)): the gradient wrt input, of the
// broadcast shape of input and target, in their dtype. Formulas as
// cpu/loss_pointwise_backward.cpp. A reduced loss's grad_output is a 0-dim
// device tensor: it is read by the kernel as a broadcast operand (never copied to
// the host), times 1 / numel for a mean.
#include <cmath>

#include "cuda/loops.cuh"
#include "cuda/loss/loss_reduce.cuh"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/views.h"

namespace ember::cuda::loss {
namespace {

// The factor applied besides grad_output: 1 / numel for a mean, else 1.
double mean_factor(int64_t reduction, int64_t numel) {
  return reduction == kMean ? 1.0 / static_cast<double>(numel) : 1.0;
}

// out[i] = f * g[i] * d(x[i], t[i]); d a functor (acc, acc) -> acc.
template <typename D>
void pair_backward(OpCall& c, const char* op, int64_t reduction, const D& d) {
  const Tensor &grad = c.in(0), &x = c.in(1), &t = c.in(2);
  Tensor out = empty(broadcast_shapes(x.sizes(), t.sizes(), op), TensorOptions(x.dtype()).device(x.device()));
  if (out.numel() == 0) {
    c.outputs.push_back(out);
    return;
  }
  const Tensor g = grad.to(x.dtype());
  EMBER_DISPATCH_FLOATING(x.dtype(), op, [&] {
    using A = opmath_t<scalar_t>;
    const A f = static_cast<A>(mean_factor(reduction, out.numel()));
    gpu_kernel<scalar_t, scalar_t, scalar_t, scalar_t>(
        out, {&g, &x, &t}, [f, d] EMBER_LAMBDA(A gi, A xi, A ti) { return f * gi * d(xi, ti); });
  });
  c.outputs.push_back(out);
}

// sign(z): 0 at 0, NaN stays NaN.
template <typename A>
EMBER_HOST_DEVICE inline A sign_of(A z) {
  const A sign = static_cast<A>((A(0) < z) - (z < A(0)));
  return z != z ? z : sign;
}

struct MseGrad {
  template <typename A>
  EMBER_HOST_DEVICE A operator()(A x, A t) const { return A(2) * (x - t); }
};
struct L1Grad {
  template <typename A>
  EMBER_HOST_DEVICE A operator()(A x, A t) const { return sign_of(x - t); }
};
struct SmoothL1Grad {
  double beta;
  template <typename A>
  EMBER_HOST_DEVICE A operator()(A x, A t) const {
    const A b = static_cast<A>(beta), z = x - t;
    if (b == A(0)) return sign_of(z);
    return z <= -b ? A(-1) : z >= b ? A(1) : z / b;
  }
};
struct HuberGrad {
  double delta;
  template <typename A>
  EMBER_HOST_DEVICE A operator()(A x, A t) const {
    const A d = static_cast<A>(delta), z = x - t;
    return z <= -d ? -d : z >= d ? d : z;
  }
};
// d/dx of -(t log x + (1 - t) log(1 - x)), the denominator clamped at 1e-12 (rounded to float).
struct BceGrad {
  template <typename A>
  EMBER_HOST_DEVICE A operator()(A x, A t) const { return (x - t) / fmax((A(1) - x) * x, static_cast<A>(1e-12f)); }
};
template <typename A>
EMBER_HOST_DEVICE inline A sigmoid_of(A x) {
  return A(1) / (A(1) + exp(-x));
}
struct BceLogitsGrad {
  template <typename A>
  EMBER_HOST_DEVICE A operator()(A x, A t) const { return sigmoid_of(x) - t; }
};

void mse_loss_backward_kernel(OpCall& c) {
  pair_backward(c, "mse_loss_backward", MseLossBackwardArgs::from(c).reduction, MseGrad{});
}
void l1_loss_backward_kernel(OpCall& c) {
  pair_backward(c, "l1_loss_backward", L1LossBackwardArgs::from(c).reduction, L1Grad{});
}
void smooth_l1_loss_backward_kernel(OpCall& c) {
  const SmoothL1LossBackwardArgs a = SmoothL1LossBackwardArgs::from(c);
  pair_backward(c, "smooth_l1_loss_backward", a.reduction, SmoothL1Grad{a.beta});
}
void huber_loss_backward_kernel(OpCall& c) {
  const HuberLossBackwardArgs a = HuberLossBackwardArgs::from(c);
  pair_backward(c, "huber_loss_backward", a.reduction, HuberGrad{a.delta});
}

void binary_cross_entropy_backward_kernel(OpCall& c) {
  const BinaryCrossEntropyBackwardArgs a = BinaryCrossEntropyBackwardArgs::from(c);
  if (!c.in(3).defined()) {
    pair_backward(c, "binary_cross_entropy_backward", a.reduction, BceGrad{});
    return;
  }
  const Tensor &x = c.in(1), &t = c.in(2), &w = c.in(3);
  Tensor out = empty(x.sizes(), TensorOptions(x.dtype()).device(x.device()));
  if (out.numel() > 0) {
    const Tensor g = c.in(0).to(x.dtype());
    EMBER_DISPATCH_FLOATING(x.dtype(), "binary_cross_entropy_backward", [&] {
      using A = opmath_t<scalar_t>;
      const A f = static_cast<A>(mean_factor(a.reduction, x.numel()));
      gpu_kernel<scalar_t, scalar_t, scalar_t, scalar_t, scalar_t>(
          out, {&g, &x, &t, &w},
          [f] EMBER_LAMBDA(A gi, A xi, A ti, A wi) { return f * gi * wi * BceGrad{}(xi, ti); });
    });
  }
  c.outputs.push_back(out);
}

void binary_cross_entropy_with_logits_backward_kernel(OpCall& c) {
  const BinaryCrossEntropyWithLogitsBackwardArgs a = BinaryCrossEntropyWithLogitsBackwardArgs::from(c);
  if (!c.in(3).defined() && !c.in(4).defined()) {
    pair_backward(c, "binary_cross_entropy_with_logits_backward", a.reduction, BceLogitsGrad{});
    return;
  }
  const Tensor &x = c.in(1), &t = c.in(2);
  Tensor out = empty(x.sizes(), TensorOptions(x.dtype()).device(x.device()));
  if (out.numel() > 0) {
    const Tensor g = c.in(0).to(x.dtype());
    const Tensor w = c.in(3).defined() ? c.in(3) : ones_scalar(x);
    const Tensor pw = c.in(4).defined() ? c.in(4) : ones_scalar(x);
    EMBER_DISPATCH_FLOATING(x.dtype(), "binary_cross_entropy_with_logits_backward", [&] {
      using A = opmath_t<scalar_t>;
      const A f = static_cast<A>(mean_factor(a.reduction, x.numel()));
      gpu_kernel<scalar_t, scalar_t, scalar_t, scalar_t, scalar_t, scalar_t>(
          out, {&g, &x, &t, &w, &pw}, [f] EMBER_LAMBDA(A gi, A xi, A ti, A wi, A pwi) {
            const A pt = pwi * ti;
            // ((pw t + 1 - t) sigmoid(x) - pw t) w g, as PyTorch.
            return f * ((pt + A(1) - ti) * sigmoid_of(xi) - pt) * wi * gi;
          });
    });
  }
  c.outputs.push_back(out);
}

EMBER_REGISTER_KERNEL(mse_loss_backward, CUDA, mse_loss_backward_kernel);
EMBER_REGISTER_KERNEL(l1_loss_backward, CUDA, l1_loss_backward_kernel);
EMBER_REGISTER_KERNEL(smooth_l1_loss_backward, CUDA, smooth_l1_loss_backward_kernel);
EMBER_REGISTER_KERNEL(huber_loss_backward, CUDA, huber_loss_backward_kernel);
EMBER_REGISTER_KERNEL(binary_cross_entropy_backward, CUDA, binary_cross_entropy_backward_kernel);
EMBER_REGISTER_KERNEL(binary_cross_entropy_with_logits_backward, CUDA,
                      binary_cross_entropy_with_logits_backward_kernel);

}  // namespace
}  // namespace ember::cuda::loss
