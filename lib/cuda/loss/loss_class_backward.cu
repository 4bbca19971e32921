// CUDA kernels of the backward of nll_loss and cross_entropy (formulas of
// cpu/loss_class_backward.cpp) (layout in loss_class.cuh):
// cross_entropy, class index k with weight w_k, smoothing eps, W = sum_c w_c,
// p = softmax(x):   d loss / d x_j = a p_j - (eps / C) w_j - (1 - eps) w_k [j == k],
// a = (1 - eps) w_k + (eps / C) W. Probabilities q, q' = (1 - eps) q + eps / C:
// d loss / d x_j = p_j sum_c w_c q'_c - w_j q'_j. Each times the position's
// scale: grad_output (reduction none), or grad_output / denominator (mean: the
// weights of the targets not ignored, or N S for probabilities). grad_output and
// the denominator stay on the device (read by the kernel through pointers). A warp
// per position when S == 1, else a thread (loss_class.cuh).
#include "cuda/loss/loss_class.cuh"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"

namespace ember::cuda::loss {
namespace {

// Where a position's scale comes from: g[pos * g_stride] / (denom ? *denom : 1).
template <typename T>
struct Scale {
  const T* g;
  int64_t g_stride;
  const double* denom;
  __device__ opmath_t<T> at(int64_t pos) const {
    double v = static_cast<double>(static_cast<opmath_t<T>>(g[pos * g_stride]));
    if (denom) v /= *denom;  // 0 / 0: NaN, as the forward
    return static_cast<opmath_t<T>>(v);
  }
};

// count[pos]: the weight of the position's target (0 if ignored or out of range).
template <typename A>
__global__ void target_weights_kernel(const int64_t* t, const A* w, int64_t positions, int64_t C,
                                      int64_t ignore_index, double* count) {
  for (int64_t pos = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; pos < positions;
       pos += int64_t(gridDim.x) * blockDim.x) {
    const int64_t k = t[pos];
    count[pos] = (k != ignore_index && k >= 0 && k < C) ? static_cast<double>(weight_at(w, k)) : 0.0;
  }
}

// A 0-dim float64 device tensor: the summed weights of the targets not ignored.
template <typename A>
Tensor target_weight_sum(const Tensor& t, const Tensor& w, int64_t C, int64_t ignore_index) {
  const int64_t positions = t.numel();
  Tensor count = empty({positions}, TensorOptions(kFloat64).device(t.device()));
  if (positions > 0) {
    LaunchContext ctx(t);
    target_weights_kernel<A><<<blocks_for(positions), kBlockThreads, 0, ctx.stream>>>(
        ptr<const int64_t>(t), w.defined() ? ptr<const A>(w) : nullptr, positions, C, ignore_index,
        ptr<double>(count));
    EMBER_CUDA_CHECK_LAUNCH();
  }
  Tensor sum = empty(DimVector{}, TensorOptions(kFloat64).device(t.device()));
  reduce::run_reduce(count, reduce::ReduceShape{1, positions, 1},
                     reduce::SumOps<double, double, double>{ptr<double>(sum), 1.0, 0, 0});
  return sum;
}

template <typename T>
__global__ void nll_backward_kernel(const int64_t* t, const opmath_t<T>* w, Scale<T> scale, ClassGeometry g,
                                    int64_t ignore_index, DeviceErrorReporter err, T* dx) {
  for (int64_t pos = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; pos < g.N * g.S;
       pos += int64_t(gridDim.x) * blockDim.x) {
    const int64_t k = t[pos];
    if (!target_ok(k, g.C, ignore_index, err)) continue;
    const int64_t n = pos / g.S, s = pos - n * g.S;
    dx[(n * g.C + k) * g.S + s] = convert<T>(-weight_at(w, k) * scale.at(pos));
  }
}

template <bool Warp, typename T>
__global__ void ce_backward_kernel(const T* x, const T* q, const int64_t* t, const opmath_t<T>* w, Scale<T> scale,
                                   ClassGeometry g, int64_t ignore_index, opmath_t<T> eps_c, opmath_t<T> keep,
                                   const double* w_sum_ptr, DeviceErrorReporter err, T* dx) {
  using A = opmath_t<T>;
  const Lanes<Warp> l{Warp ? static_cast<int>(threadIdx.x) % kWarpSize : 0};
  const A w_sum = w_sum_ptr ? static_cast<A>(*w_sum_ptr) : static_cast<A>(g.C);  // W = sum_c w_c
  for (int64_t pos = first_position<Warp>(); pos < g.N * g.S; pos += position_step<Warp>()) {
    const int64_t n = pos / g.S, s = pos - n * g.S, base = n * g.C * g.S + s;
    const T* xp = x + base;
    T* dp = dx + base;
    int64_t k = -1;
    if (!q && !target_ok(t[pos], g.C, ignore_index, err)) {  // the same branch for every lane
      for (int64_t c = l.lane; c < g.C; c += l.kStep) dp[c * g.S] = convert<T>(A(0));
      continue;
    }
    if (!q) k = t[pos];
    const A gs = scale.at(pos);
    const A m = position_max<Warp, T, A>(xp, g.C, g.S, l);
    A sum = 0;
    for (int64_t c = l.lane; c < g.C; c += l.kStep) sum += reduce::exp_acc(static_cast<A>(xp[c * g.S]) - m);
    const A inv = A(1) / l.sum(sum);
    if (q) {
      const T* qp = q + base;
      A wq = 0;  // sum_c w_c q'_c
      for (int64_t c = l.lane; c < g.C; c += l.kStep) wq += weight_at(w, c) * (static_cast<A>(qp[c * g.S]) * keep + eps_c);
      const A alpha = gs * l.sum(wq) * inv;
      for (int64_t c = l.lane; c < g.C; c += l.kStep) {
        const A e = reduce::exp_acc(static_cast<A>(xp[c * g.S]) - m);
        dp[c * g.S] = convert<T>(alpha * e - gs * weight_at(w, c) * (static_cast<A>(qp[c * g.S]) * keep + eps_c));
      }
      continue;
    }
    const A w_k = weight_at(w, k);
    const A alpha = gs * (keep * w_k + eps_c * w_sum) * inv, beta = gs * eps_c;
    for (int64_t c = l.lane; c < g.C; c += l.kStep) {
      const A e = reduce::exp_acc(static_cast<A>(xp[c * g.S]) - m);
      A d = alpha * e - beta * weight_at(w, c);
      if (c == k) d -= gs * keep * w_k;
      dp[c * g.S] = convert<T>(d);
    }
  }
}

// The scale's grad pointer (converted to x's dtype, contiguous) and stride.
struct GradInput {
  Tensor g;
  int64_t stride;
};
GradInput grad_input(const Tensor& grad, const Tensor& x, int64_t reduction) {
  return {grad.to(x.dtype()).contiguous(), reduction == kNone ? 1 : 0};
}

void nll_loss_backward_kernel(OpCall& c) {
  const Tensor& x = c.in(1);
  const NllLossBackwardArgs a = NllLossBackwardArgs::from(c);
  const ClassGeometry g = class_geometry(x);
  const Tensor w = device_weights(c.in(3), x);
  const Tensor t = c.in(2).to(kInt64).contiguous();
  Tensor dx = zeros(IntList(x.sizes().begin(), x.sizes().end()), TensorOptions(x.dtype()).device(x.device()));
  c.outputs.push_back(dx);
  if (g.positions() == 0) return;
  const GradInput gi = grad_input(c.in(0), x, a.reduction);
  EMBER_DISPATCH_FLOATING(x.dtype(), "nll_loss_backward", [&] {
    using A = opmath_t<scalar_t>;
    Tensor denom;
    if (a.reduction == kMean)
      denom = c.in(4).defined() ? c.in(4).to(x.device(), kFloat64).contiguous()
                                : target_weight_sum<A>(t, w, g.C, a.ignore_index);
    const Scale<scalar_t> scale{ptr<const scalar_t>(gi.g), gi.stride, denom.defined() ? ptr<const double>(denom) : nullptr};
    LaunchContext ctx(x);
    const DeviceErrorReporter err = device_error_reporter(x.device().index, opid::nll_loss_backward);
    nll_backward_kernel<scalar_t><<<blocks_for(g.positions()), kBlockThreads, 0, ctx.stream>>>(
        ptr<const int64_t>(t), w.defined() ? ptr<const A>(w) : nullptr, scale, g, a.ignore_index, err,
        ptr<scalar_t>(dx));
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void cross_entropy_backward_kernel(OpCall& c) {
  const Tensor x = c.in(1).contiguous();
  const Tensor& target = c.in(2);
  const CrossEntropyBackwardArgs a = CrossEntropyBackwardArgs::from(c);
  const bool probs = target.is_floating_point();
  const ClassGeometry g = class_geometry(x);
  const Tensor w = device_weights(c.in(3), x);
  const Tensor t = probs ? Tensor() : target.to(kInt64).contiguous();
  const Tensor q = probs ? target.to(x.dtype()).contiguous() : Tensor();
  Tensor dx = empty(x.sizes(), TensorOptions(x.dtype()).device(x.device()));
  c.outputs.push_back(dx);
  if (x.numel() == 0) return;
  const GradInput gi = grad_input(c.in(0), x, a.reduction);
  EMBER_DISPATCH_FLOATING(x.dtype(), "cross_entropy_backward", [&] {
    using A = opmath_t<scalar_t>;
    Tensor denom;
    if (a.reduction == kMean)
      denom = probs ? full({}, static_cast<double>(g.positions()), TensorOptions(kFloat64).device(x.device()))
                    : target_weight_sum<A>(t, w, g.C, a.ignore_index);
    const Scale<scalar_t> scale{ptr<const scalar_t>(gi.g), gi.stride, denom.defined() ? ptr<const double>(denom) : nullptr};
    // W = sum_c w_c on the device (no weight: C).
    Tensor w_sum;
    if (w.defined()) {
      w_sum = empty(DimVector{}, TensorOptions(kFloat64).device(x.device()));
      reduce::run_reduce(w, reduce::ReduceShape{1, g.C, 1},
                         reduce::SumOps<A, double, double>{ptr<double>(w_sum), 1.0, 0, 0});
    }
    LaunchContext ctx(x);
    const DeviceErrorReporter err = device_error_reporter(x.device().index, opid::cross_entropy_backward);
    const scalar_t* xp = ptr<const scalar_t>(x);
    const scalar_t* qp = probs ? ptr<const scalar_t>(q) : nullptr;
    const int64_t* tp = probs ? nullptr : ptr<const int64_t>(t);
    const A* wp = w.defined() ? ptr<const A>(w) : nullptr;
    const A eps_c = static_cast<A>(a.label_smoothing / static_cast<double>(g.C)),
            keep = static_cast<A>(1 - a.label_smoothing);
    const double* wsp = w_sum.defined() ? ptr<const double>(w_sum) : nullptr;
    const bool warp = g.S == 1;  // a position's logits are contiguous: a warp per position
    const unsigned blocks = class_loss_blocks(g.positions(), warp);
    if (warp)
      ce_backward_kernel<true, scalar_t><<<blocks, kBlockThreads, 0, ctx.stream>>>(
          xp, qp, tp, wp, scale, g, a.ignore_index, eps_c, keep, wsp, err, ptr<scalar_t>(dx));
    else
      ce_backward_kernel<false, scalar_t><<<blocks, kBlockThreads, 0, ctx.stream>>>(
          xp, qp, tp, wp, scale, g, a.ignore_index, eps_c, keep, wsp, err, ptr<scalar_t>(dx));
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

EMBER_REGISTER_KERNEL(nll_loss_backward, CUDA, nll_loss_backward_kernel);
EMBER_REGISTER_KERNEL(cross_entropy_backward, CUDA, cross_entropy_backward_kernel);

}  // namespace
}  // namespace ember::cuda::loss
