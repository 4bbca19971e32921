// CUDA kernels of the fused optimizer updates (lib/dispatch/schema/optim.toml):
// sgd_step, adam_step, rmsprop_step, adagrad_step, float32 and float64 (the
// dtypes of the CPU kernels). Each call updates one parameter with one launch
// that reads the gradient and the state once and writes the parameter and the
// state once (the op table has one call per parameter, so a multi-tensor launch
// would need a list op first). The element arithmetic is the CPU kernel's
// (lib/cpu/optim.cpp), expression for expression, with the helpers of
// kernels/optim_math.h and kernels/lerp.h: results agree with the CPU to rounding (nvcc
// may fuse a multiply and an add into one FMA, which rounds once).
// The options are runtime flags here: every thread takes the same branch.
#include <cmath>

#include "kernels/optim_math.h"
#include "kernels/lerp.h"
#include "kernels/optim_operands.h"
#include "cuda/launch.h"
#include "dispatch/args/optim.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/optim.h"

namespace ember::cuda {
namespace {


#define EMBER_GRID_STRIDE(i, n)                                                                  \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x, step_ = int64_t(gridDim.x) * blockDim.x; \
       i < (n); i += step_)

template <typename T>
__device__ __forceinline__ T grad_of(T g, T p, T sign, T wd, bool decay) {
  return decay ? effective_grad<true>(g, p, sign, wd) : effective_grad<false>(g, p, sign, wd);
}

template <typename T>
struct SgdArgs {
  T wd, mom, keep, neg_lr, sign;
  bool decay, first, nesterov;
};

template <typename T>
__global__ void sgd_kernel(T* p, const T* g, T* buf, int64_t n, SgdArgs<T> a) {
  EMBER_GRID_STRIDE(i, n) {
    T gi = grad_of(g[i], p[i], a.sign, a.wd, a.decay);
    if (buf != nullptr) {
      const T b = a.first ? gi : buf[i] * a.mom + a.keep * gi;
      buf[i] = b;
      gi = a.nesterov ? gi + a.mom * b : b;
    }
    p[i] = p[i] + a.neg_lr * gi;
  }
}

template <typename T>
struct AdamArgs {
  T wd, decay, w1, b2, w2, eps, neg_step, bc2_sqrt, sign;
  bool coupled_decay, decoupled_decay;
};

template <typename T>
__global__ void adam_kernel(T* p, const T* g, T* m, T* v, T* vmax, int64_t n, AdamArgs<T> a) {
  EMBER_GRID_STRIDE(i, n) {
    T pi = p[i];
    if (a.decoupled_decay) pi = pi * a.decay;
    const T gi = grad_of(g[i], pi, a.sign, a.wd, a.coupled_decay);
    const T mi = lerp_value(m[i], gi, a.w1);
    T vi = v[i] * a.b2 + a.w2 * gi * gi;
    m[i] = mi;
    v[i] = vi;
    if (vmax != nullptr) vi = vmax[i] = max_propagate_nan(vmax[i], vi);
    const T denom = sqrt(vi) / a.bc2_sqrt + a.eps;
    p[i] = pi + a.neg_step * mi / denom;
  }
}

template <typename T>
struct RmspropArgs {
  T wd, alpha, w, eps, mom, neg_lr, sign;
  bool decay;
};

template <typename T>
__global__ void rmsprop_kernel(T* p, const T* g, T* sq, T* buf, T* gavg, int64_t n, RmspropArgs<T> a) {
  EMBER_GRID_STRIDE(i, n) {
    const T gi = grad_of(g[i], p[i], a.sign, a.wd, a.decay);
    const T si = sq[i] * a.alpha + a.w * gi * gi;
    sq[i] = si;
    T avg;
    if (gavg != nullptr) {  // centered: the variance estimate E[g^2] - E[g]^2
      const T gai = lerp_value(gavg[i], gi, a.w);
      gavg[i] = gai;
      avg = sqrt(si + T(-1) * gai * gai);
    } else {
      avg = sqrt(si);
    }
    avg = avg + a.eps;
    if (buf != nullptr) {
      const T b = buf[i] * a.mom + gi / avg;
      buf[i] = b;
      p[i] = p[i] + a.neg_lr * b;
    } else {
      p[i] = p[i] + a.neg_lr * gi / avg;
    }
  }
}

template <typename T>
struct AdagradArgs {
  T wd, eps, neg_clr, sign;
  bool decay;
};

template <typename T>
__global__ void adagrad_kernel(T* p, const T* g, T* sum, int64_t n, AdagradArgs<T> a) {
  EMBER_GRID_STRIDE(i, n) {
    const T gi = grad_of(g[i], p[i], a.sign, a.wd, a.decay);
    const T si = sum[i] + gi * gi;
    sum[i] = si;
    p[i] = p[i] + a.neg_clr * gi / (sqrt(si) + a.eps);
  }
}

#undef EMBER_GRID_STRIDE

void sgd_step_kernel(OpCall& c) {
  DenseOperands d(c);
  const SgdStepArgs args = SgdStepArgs::from(c);
  const int64_t n = d.numel();
  if (n > 0) {
    EMBER_DISPATCH_OPTIM(c.in(0).dtype(), c.name(), [&] {
      using T = scalar_t;
      SgdArgs<T> a{T(args.weight_decay), T(args.momentum), T(1 - args.dampening), T(-args.lr),
                   T(args.maximize ? -1 : 1), args.weight_decay != 0, args.init_buffer, args.nesterov};
      LaunchContext ctx(c.in(0));
      sgd_kernel<T><<<blocks_for(n), kBlockThreads, 0, ctx.stream>>>(d.data<T>(0), d.data<T>(1), d.data<T>(2), n, a);
      EMBER_CUDA_CHECK_LAUNCH();
    });
  }
  d.write_back();
}

void adam_step_kernel(OpCall& c) {
  DenseOperands d(c);
  const AdamStepArgs args = AdamStepArgs::from(c);
  // Bias corrections in double on the host, as the CPU kernel (and torch.optim in Python).
  const double bias_correction1 = 1 - std::pow(args.beta1, args.step);
  const double bias_correction2 = 1 - std::pow(args.beta2, args.step);
  const double step_size = args.lr / bias_correction1;
  const double bias_correction2_sqrt = std::pow(bias_correction2, 0.5);
  const int64_t n = d.numel();
  if (n > 0) {
    EMBER_DISPATCH_OPTIM(c.in(0).dtype(), c.name(), [&] {
      using T = scalar_t;
      AdamArgs<T> a{T(args.weight_decay), T(1 - args.lr * args.weight_decay), T(1 - args.beta1),
                    T(args.beta2),        T(1 - args.beta2),                    T(args.eps),
                    T(-step_size),        T(bias_correction2_sqrt),             T(args.maximize ? -1 : 1),
                    args.weight_decay != 0 && !args.decoupled_weight_decay,
                    args.weight_decay != 0 && args.decoupled_weight_decay};
      LaunchContext ctx(c.in(0));
      adam_kernel<T><<<blocks_for(n), kBlockThreads, 0, ctx.stream>>>(d.data<T>(0), d.data<T>(1), d.data<T>(2),
                                                                      d.data<T>(3), d.data<T>(4), n, a);
      EMBER_CUDA_CHECK_LAUNCH();
    });
  }
  d.write_back();
}

void rmsprop_step_kernel(OpCall& c) {
  DenseOperands d(c);
  const RmspropStepArgs args = RmspropStepArgs::from(c);
  const int64_t n = d.numel();
  if (n > 0) {
    EMBER_DISPATCH_OPTIM(c.in(0).dtype(), c.name(), [&] {
      using T = scalar_t;
      RmspropArgs<T> a{T(args.weight_decay), T(args.alpha), T(1 - args.alpha), T(args.eps), T(args.momentum),
                       T(-args.lr), T(args.maximize ? -1 : 1), args.weight_decay != 0};
      LaunchContext ctx(c.in(0));
      rmsprop_kernel<T><<<blocks_for(n), kBlockThreads, 0, ctx.stream>>>(d.data<T>(0), d.data<T>(1), d.data<T>(2),
                                                                         d.data<T>(3), d.data<T>(4), n, a);
      EMBER_CUDA_CHECK_LAUNCH();
    });
  }
  d.write_back();
}

void adagrad_step_kernel(OpCall& c) {
  DenseOperands d(c);
  const AdagradStepArgs args = AdagradStepArgs::from(c);
  const double clr = args.lr / (1 + (args.step - 1) * args.lr_decay);
  const int64_t n = d.numel();
  if (n > 0) {
    EMBER_DISPATCH_OPTIM(c.in(0).dtype(), c.name(), [&] {
      using T = scalar_t;
      AdagradArgs<T> a{T(args.weight_decay), T(args.eps), T(-clr), T(args.maximize ? -1 : 1),
                       args.weight_decay != 0};
      LaunchContext ctx(c.in(0));
      adagrad_kernel<T><<<blocks_for(n), kBlockThreads, 0, ctx.stream>>>(d.data<T>(0), d.data<T>(1), d.data<T>(2),
                                                                         n, a);
      EMBER_CUDA_CHECK_LAUNCH();
    });
  }
  d.write_back();
}

EMBER_REGISTER_KERNEL(sgd_step, CUDA, sgd_step_kernel);
EMBER_REGISTER_KERNEL(adam_step, CUDA, adam_step_kernel);
EMBER_REGISTER_KERNEL(rmsprop_step, CUDA, rmsprop_step_kernel);
EMBER_REGISTER_KERNEL(adagrad_step, CUDA, adagrad_step_kernel);

}  // namespace
}  // namespace ember::cuda
