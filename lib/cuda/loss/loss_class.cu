// CUDA kernels of cross_entropy and nll_loss (one kernel for both, as
// cpu/loss_class.cpp): each position's loss (and the weight it counts with in a
// mean) in double, then reduction none (cast to the input's dtype), sum, or mean
// (divided by the summed weights of the targets not ignored, or by the number of
// positions for probability targets; 0 / 0 is NaN as PyTorch). Geometry, the
// warp-per-position layout (S == 1) and the target checks in loss_class.cuh. No
// log_softmax tensor is materialized.
#include "cuda/loss/loss_class.cuh"
#include "dispatch/args/nn.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "kernels/restride.h"

namespace ember::cuda::loss {
namespace {

struct ClassLossParams {
  bool log_softmax;  // cross_entropy (logits) or nll_loss (log-probabilities)
  int64_t ignore_index;
  int64_t reduction;
  double label_smoothing;
};

// loss[pos] and count[pos] (the position's weight in a mean) of every position.
// q: probability targets (x's shape) or null; t: class-index targets or null.
template <bool Warp, typename T>
__global__ void class_loss_kernel(const T* x, const T* q, const int64_t* t, const opmath_t<T>* w,
                                  ClassGeometry g, ClassLossParams p, DeviceErrorReporter err,
                                  double* loss, double* count) {
  using A = opmath_t<T>;
  const Lanes<Warp> l{Warp ? static_cast<int>(threadIdx.x) % kWarpSize : 0};
  const bool writer = l.lane == 0;
  const int64_t positions = g.N * g.S;
  const double eps = p.label_smoothing;
  const A keep = static_cast<A>(1 - eps), uniform = static_cast<A>(eps / static_cast<double>(g.C > 0 ? g.C : 1));
  for (int64_t pos = first_position<Warp>(); pos < positions; pos += position_step<Warp>()) {
    const int64_t n = pos / g.S, s = pos - n * g.S;
    const T* xp = x + n * g.C * g.S + s;
    int64_t k = -1;
    if (!q) {
      k = t[pos];
      if (!target_ok(k, g.C, p.ignore_index, err)) {  // the same branch for every lane
        if (writer) loss[pos] = count[pos] = 0;
        continue;
      }
    }
    A m = 0, log_sum = 0;
    if (p.log_softmax) position_max_logsum(xp, g.C, g.S, l, m, log_sum);
    const A lse = m + log_sum;
    if (q) {  // -sum_c w_c (q_c keep + uniform) (x_c - lse)
      const T* qp = q + n * g.C * g.S + s;
      A acc = 0;
      for (int64_t c = l.lane; c < g.C; c += l.kStep)
        acc += weight_at(w, c) * (static_cast<A>(qp[c * g.S]) * keep + uniform) * (static_cast<A>(xp[c * g.S]) - lse);
      acc = l.sum(acc);
      if (writer) {
        loss[pos] = -static_cast<double>(acc);
        count[pos] = 1;
      }
      continue;
    }
    const double w_k = weight_at(w, k);
    const double nll = -w_k * static_cast<double>(static_cast<A>(xp[k * g.S]) - lse);
    double result = nll;
    if (eps > 0) {  // mixed with the uniform part: sum_c w_c (x_c - lse)
      A smooth = 0;
      for (int64_t c = l.lane; c < g.C; c += l.kStep) smooth += weight_at(w, c) * (static_cast<A>(xp[c * g.S]) - lse);
      smooth = l.sum(smooth);
      result = (1 - eps) * nll - eps / static_cast<double>(g.C) * static_cast<double>(smooth);
    }
    if (writer) {
      loss[pos] = result;
      count[pos] = w_k;
    }
  }
}

// out = sums[0] / sums[1] (mean by weight), sums[0] / positions (mean), or sums[0].
template <typename T>
__global__ void finish_class_loss_kernel(const double* sums, T* out, int64_t reduction, bool by_count,
                                         int64_t positions) {
  double v = sums[0];
  if (reduction == kMean) v /= by_count ? sums[1] : static_cast<double>(positions);
  *out = convert<T>(v);
}

void class_loss(OpCall& c, const ClassLossParams& p, OpId op, const char* name) {
  const Tensor x = c.in(0).contiguous();
  const Tensor& target = c.in(1);
  const bool probs = target.is_floating_point();
  const ClassGeometry g = class_geometry(x);
  DimVector shape = x.sizes();  // per-position shape: the input's without the class dim
  shape.erase(shape.begin() + (x.dim() == 1 ? 0 : 1));
  const int64_t positions = g.positions();
  const TensorOptions dopts = TensorOptions(kFloat64).device(x.device());
  // [loss..., count...]: one buffer, so one reduction gives both sums.
  Tensor buf = empty({2, positions}, dopts);
  double* loss = ptr<double>(buf);
  const Tensor w = device_weights(c.in(2), x);
  const Tensor q = probs ? target.to(x.dtype()).contiguous() : Tensor();
  const Tensor t = probs ? Tensor() : target.to(kInt64).contiguous();
  if (positions > 0) {
    LaunchContext ctx(x);
    const DeviceErrorReporter err = device_error_reporter(x.device().index, op);
    const bool warp = g.S == 1;  // a position's scores are contiguous: a warp per position
    EMBER_DISPATCH_FLOATING(x.dtype(), name, [&] {
      using A = opmath_t<scalar_t>;
      const scalar_t* xp = ptr<const scalar_t>(x);
      const scalar_t* qp = probs ? ptr<const scalar_t>(q) : nullptr;
      const int64_t* tp = probs ? nullptr : ptr<const int64_t>(t);
      const A* wp = w.defined() ? ptr<const A>(w) : nullptr;
      const unsigned blocks = class_loss_blocks(positions, warp);
      if (warp)
        class_loss_kernel<true, scalar_t><<<blocks, kBlockThreads, 0, ctx.stream>>>(xp, qp, tp, wp, g, p, err, loss,
                                                                                   loss + positions);
      else
        class_loss_kernel<false, scalar_t><<<blocks, kBlockThreads, 0, ctx.stream>>>(xp, qp, tp, wp, g, p, err, loss,
                                                                                    loss + positions);
      EMBER_CUDA_CHECK_LAUNCH();
    });
  }
  if (p.reduction == kNone) {
    // The loss row of buf in the output's shape, made without a dispatched view op: a
    // view made here would reach autograd as a view of buf (its grad_fn then rebuilt as
    // as_strided of buf: the first GPU run's wrong cross_entropy gradients in float64).
    const DimVector sizes(shape.begin(), shape.end());
    c.outputs.push_back(restride(buf, sizes, contiguous_strides(sizes), 0).to(x.dtype()));
    return;
  }
  Tensor sums = empty({2}, dopts);
  reduce::run_reduce(buf, reduce::ReduceShape{2, positions, 1},
                     reduce::SumOps<double, double, double>{ptr<double>(sums), 1.0, 0, 0});
  Tensor out = empty(DimVector{}, TensorOptions(x.dtype()).device(x.device()));
  LaunchContext ctx(x);
  EMBER_DISPATCH_FLOATING(x.dtype(), name, [&] {
    finish_class_loss_kernel<scalar_t><<<1, 1, 0, ctx.stream>>>(ptr<const double>(sums), ptr<scalar_t>(out),
                                                               p.reduction, !probs, positions);
    EMBER_CUDA_CHECK_LAUNCH();
  });
  c.outputs.push_back(out);
}

void cross_entropy_kernel(OpCall& c) {
  const CrossEntropyArgs a = CrossEntropyArgs::from(c);
  class_loss(c, {true, a.ignore_index, a.reduction, a.label_smoothing}, opid::cross_entropy,
             "cross_entropy");
}

void nll_loss_kernel(OpCall& c) {
  const NllLossArgs a = NllLossArgs::from(c);
  class_loss(c, {false, a.ignore_index, a.reduction, 0.0}, opid::nll_loss, "nll_loss");
}

EMBER_REGISTER_KERNEL(cross_entropy, CUDA, cross_entropy_kernel);
EMBER_REGISTER_KERNEL(nll_loss, CUDA, nll_loss_kernel);

}  // namespace
}  // namespace ember::cuda::loss
