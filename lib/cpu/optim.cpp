// CPU kernels of the fused optimizer updates (lib/dispatch/ops/optim.def).
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
  const double lr = c.attr(0).to_double(), momentum = c.attr(1).to_double(),
               dampening = c.attr(2).to_double(), weight_decay = c.attr(3).to_double();
  const bool nesterov = c.attr(4).to_bool(), maximize = c.attr(5).to_bool(),
             init_buffer = c.attr(6).to_bool();
  EMBER_DISPATCH_OPTIM(c.in(0).dtype(), c.name(), [&] {
    using T = scalar_t;
    T* p = d.data<T>(0);
    const T* g = d.data<T>(1);
    T* buf = d.data<T>(2);
    const T wd = T(weight_decay), mom = T(momentum), keep = T(1 - dampening), neg_lr = T(-lr),
            sign = T(maximize ? -1 : 1);
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
    }, weight_decay != 0, buf != nullptr, init_buffer, nesterov);
  });
  d.write_back();
}

void adam_step_kernel(OpCall& c) {
  DenseOperands d(c);
  const double lr = c.attr(0).to_double(), beta1 = c.attr(1).to_double(),
               beta2 = c.attr(2).to_double(), eps = c.attr(3).to_double(),
               weight_decay = c.attr(4).to_double(), step = c.attr(5).to_double();
  const bool maximize = c.attr(6).to_bool(), decoupled = c.attr(7).to_bool();
  // Bias corrections in double, as torch.optim computes them in Python.
  const double bias_correction1 = 1 - std::pow(beta1, step);
  const double bias_correction2 = 1 - std::pow(beta2, step);
  const double step_size = lr / bias_correction1;
  const double bias_correction2_sqrt = std::pow(bias_correction2, 0.5);
  EMBER_DISPATCH_OPTIM(c.in(0).dtype(), c.name(), [&] {
    using T = scalar_t;
    T* p = d.data<T>(0);
    const T* g = d.data<T>(1);
    T *m = d.data<T>(2), *v = d.data<T>(3), *vmax = d.data<T>(4);
    const T wd = T(weight_decay), decay = T(1 - lr * weight_decay), w1 = T(1 - beta1),
            b2 = T(beta2), w2 = T(1 - beta2), eps_t = T(eps), neg_step = T(-step_size),
            bc2_sqrt = T(bias_correction2_sqrt), sign = T(maximize ? -1 : 1);
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
    }, weight_decay != 0 && !decoupled, weight_decay != 0 && decoupled, vmax != nullptr);
  });
  d.write_back();
}

void rmsprop_step_kernel(OpCall& c) {
  DenseOperands d(c);
  const double lr = c.attr(0).to_double(), alpha = c.attr(1).to_double(),
               eps = c.attr(2).to_double(), weight_decay = c.attr(3).to_double();
  const bool maximize = c.attr(5).to_bool();
  EMBER_DISPATCH_OPTIM(c.in(0).dtype(), c.name(), [&] {
    using T = scalar_t;
    T* p = d.data<T>(0);
    const T* g = d.data<T>(1);
    T *sq = d.data<T>(2), *buf = d.data<T>(3), *gavg = d.data<T>(4);
    const T wd = T(weight_decay), a = T(alpha), w = T(1 - alpha), eps_t = T(eps),
            mom = T(c.attr(4).to_double()), neg_lr = T(-lr), sign = T(maximize ? -1 : 1);
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
    }, weight_decay != 0, gavg != nullptr, buf != nullptr);
  });
  d.write_back();
}

void adagrad_step_kernel(OpCall& c) {
  DenseOperands d(c);
  const double lr = c.attr(0).to_double(), lr_decay = c.attr(1).to_double(),
               weight_decay = c.attr(2).to_double(), eps = c.attr(3).to_double(),
               step = c.attr(4).to_double();
  const bool maximize = c.attr(5).to_bool();
  const double clr = lr / (1 + (step - 1) * lr_decay);
  EMBER_DISPATCH_OPTIM(c.in(0).dtype(), c.name(), [&] {
    using T = scalar_t;
    T* p = d.data<T>(0);
    const T* g = d.data<T>(1);
    T* sum = d.data<T>(2);
    const T wd = T(weight_decay), eps_t = T(eps), neg_clr = T(-clr), sign = T(maximize ? -1 : 1);
    with_static_flags([&](auto decay) {
      for_each_element(d.numel(), [=](int64_t i) {
        const T gi = effective_grad<decay>(g[i], p[i], sign, wd);
        const T si = sum[i] + gi * gi;
        sum[i] = si;
        p[i] = p[i] + neg_clr * gi / (std::sqrt(si) + eps_t);
      });
    }, weight_decay != 0);
  });
  d.write_back();
}

EMBER_REGISTER_KERNEL(sgd_step, CPU, sgd_step_kernel);
EMBER_REGISTER_KERNEL(adam_step, CPU, adam_step_kernel);
EMBER_REGISTER_KERNEL(rmsprop_step, CPU, rmsprop_step_kernel);
EMBER_REGISTER_KERNEL(adagrad_step, CPU, adagrad_step_kernel);

}  // namespace
}  // namespace ember::cpu
