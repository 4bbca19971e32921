// CPU kernels of the fused optimizer updates (lib/dispatch/schema/optim.toml).
// Each is one parallel loop over the parameter's elements that reads the
// gradient and the state once and writes the parameter and the state once.
// The arithmetic follows torch.optim's foreach=False code step by step (in
// the parameter's dtype, with the hyperparameters rounded to it, as PyTorch's
// kernels do with a Python number), so results agree with PyTorch to within
// a few units in the last place.
#include <cmath>
#include <type_traits>

#include "kernels/optim_math.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/lerp.h"
#include "kernels/optim_operands.h"
#include "cpu/parallel.h"
#include "dispatch/args/optim.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/optim.h"
#include "ember/ops/views.h"

namespace ember::cpu {
namespace {

// Runs body(i) for every element, split across threads. The body captures
// its pointers and constants by value, and each thread runs a private copy,
// so they stay in registers and the loop vectorizes.
template <typename Body>
void for_each_element(int64_t n, const Body& body) {
  parallel_for(0, n, kGrainSize / 4, [&](int64_t begin, int64_t end) {
    Body local = body;
    for (int64_t i = begin; i < end; ++i) local(i);
  });
}

// Calls f(std::bool_constant<flag>...) for the given runtime flags, so that
// each combination of options gets its own branch-free (vectorizable) loop.
template <typename F>
void with_static_flags(const F& f) {
  f();
}
template <typename F, typename... Rest>
void with_static_flags(const F& f, bool flag, Rest... rest) {
  auto bind = [&](auto first) {
    with_static_flags([&](auto... more) { f(first, more...); }, rest...);
  };
  if (flag)
    bind(std::true_type{});
  else
    bind(std::false_type{});
}

void sgd_step_kernel(OpCall& c) {
  DenseOperands d(c);
  const SgdStepArgs args = SgdStepArgs::from(c);
  EMBER_DISPATCH_OPTIM(c.in(0).dtype(), c.name(), [&] {
    using T = scalar_t;
    T* p = d.data<T>(0);
    const T* g = d.data<T>(1);
    T* buf = d.data<T>(2);
    const T wd = T(args.weight_decay), mom = T(args.momentum), keep = T(1 - args.dampening),
            neg_lr = T(-args.lr), sign = T(args.maximize ? -1 : 1);
    with_static_flags([&](auto decay, auto has_buf, auto first, auto nest) {
      for_each_element(d.numel(), [=](int64_t i) {
        T gi = effective_grad<decay>(g[i], p[i], sign, wd);
        if constexpr (has_buf) {
          const T b = first ? gi : buf[i] * mom + keep * gi;
          buf[i] = b;
          gi = nest ? gi + mom * b : b;
        }
        p[i] = p[i] + neg_lr * gi;
      });
    }, args.weight_decay != 0, buf != nullptr, args.init_buffer, args.nesterov);
  });
  d.write_back();
}

void adam_step_kernel(OpCall& c) {
  DenseOperands d(c);
  const AdamStepArgs args = AdamStepArgs::from(c);
  // Bias corrections in double, as torch.optim computes them in Python.
  const double bias_correction1 = 1 - std::pow(args.beta1, args.step);
  const double bias_correction2 = 1 - std::pow(args.beta2, args.step);
  const double step_size = args.lr / bias_correction1;
  const double bias_correction2_sqrt = std::pow(bias_correction2, 0.5);
  EMBER_DISPATCH_OPTIM(c.in(0).dtype(), c.name(), [&] {
    using T = scalar_t;
    T* p = d.data<T>(0);
    const T* g = d.data<T>(1);
    T *m = d.data<T>(2), *v = d.data<T>(3), *vmax = d.data<T>(4);
    const T wd = T(args.weight_decay), decay = T(1 - args.lr * args.weight_decay), w1 = T(1 - args.beta1),
            b2 = T(args.beta2), w2 = T(1 - args.beta2), eps_t = T(args.eps), neg_step = T(-step_size),
            bc2_sqrt = T(bias_correction2_sqrt), sign = T(args.maximize ? -1 : 1);
    with_static_flags([&](auto coupled_decay, auto decoupled_decay, auto amsgrad) {
      for_each_element(d.numel(), [=](int64_t i) {
        T pi = p[i];
        if constexpr (decoupled_decay) pi = pi * decay;
        const T gi = effective_grad<coupled_decay>(g[i], pi, sign, wd);
        const T mi = lerp_value(m[i], gi, w1);
        T vi = v[i] * b2 + w2 * gi * gi;
        m[i] = mi;
        v[i] = vi;
        if constexpr (amsgrad) vi = vmax[i] = max_propagate_nan(vmax[i], vi);
        const T denom = std::sqrt(vi) / bc2_sqrt + eps_t;
        p[i] = pi + neg_step * mi / denom;
      });
    }, args.weight_decay != 0 && !args.decoupled_weight_decay,
       args.weight_decay != 0 && args.decoupled_weight_decay, vmax != nullptr);
  });
  d.write_back();
}

void rmsprop_step_kernel(OpCall& c) {
  DenseOperands d(c);
  const RmspropStepArgs args = RmspropStepArgs::from(c);
  EMBER_DISPATCH_OPTIM(c.in(0).dtype(), c.name(), [&] {
    using T = scalar_t;
    T* p = d.data<T>(0);
    const T* g = d.data<T>(1);
    T *sq = d.data<T>(2), *buf = d.data<T>(3), *gavg = d.data<T>(4);
    const T wd = T(args.weight_decay), a = T(args.alpha), w = T(1 - args.alpha), eps_t = T(args.eps),
            mom = T(args.momentum), neg_lr = T(-args.lr), sign = T(args.maximize ? -1 : 1);
    with_static_flags([&](auto decay, auto centered, auto has_buf) {
      for_each_element(d.numel(), [=](int64_t i) {
        const T gi = effective_grad<decay>(g[i], p[i], sign, wd);
        const T si = sq[i] * a + w * gi * gi;
        sq[i] = si;
        T avg;
        if constexpr (centered) {  // the variance estimate E[g^2] - E[g]^2
          const T gai = lerp_value(gavg[i], gi, w);
          gavg[i] = gai;
          avg = std::sqrt(si + T(-1) * gai * gai);
        } else {
          avg = std::sqrt(si);
        }
        avg = avg + eps_t;
        if constexpr (has_buf) {
          const T b = buf[i] * mom + gi / avg;
          buf[i] = b;
          p[i] = p[i] + neg_lr * b;
        } else {
          p[i] = p[i] + neg_lr * gi / avg;
        }
      });
    }, args.weight_decay != 0, gavg != nullptr, buf != nullptr);
  });
  d.write_back();
}

void adagrad_step_kernel(OpCall& c) {
  DenseOperands d(c);
  const AdagradStepArgs args = AdagradStepArgs::from(c);
  const double clr = args.lr / (1 + (args.step - 1) * args.lr_decay);
  EMBER_DISPATCH_OPTIM(c.in(0).dtype(), c.name(), [&] {
    using T = scalar_t;
    T* p = d.data<T>(0);
    const T* g = d.data<T>(1);
    T* sum = d.data<T>(2);
    const T wd = T(args.weight_decay), eps_t = T(args.eps), neg_clr = T(-clr),
            sign = T(args.maximize ? -1 : 1);
    with_static_flags([&](auto decay) {
      for_each_element(d.numel(), [=](int64_t i) {
        const T gi = effective_grad<decay>(g[i], p[i], sign, wd);
        const T si = sum[i] + gi * gi;
        sum[i] = si;
        p[i] = p[i] + neg_clr * gi / (std::sqrt(si) + eps_t);
      });
    }, args.weight_decay != 0);
  });
  d.write_back();
}

EMBER_REGISTER_KERNEL(sgd_step, CPU, sgd_step_kernel);
EMBER_REGISTER_KERNEL(adam_step, CPU, adam_step_kernel);
EMBER_REGISTER_KERNEL(rmsprop_step, CPU, rmsprop_step_kernel);
EMBER_REGISTER_KERNEL(adagrad_step, CPU, adagrad_step_kernel);

}  // namespace
}  // namespace ember::cpu
