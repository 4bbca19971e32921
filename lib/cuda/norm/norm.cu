// CUDA kernels of batch_norm, layer_norm and group_norm (the CPU's outputs and
// formulas, lib/cpu/norm.cpp): statistics per segment (norm_common.h: one block per
// row / group / channel, two passes: the mean, then the squared deviations from it),
// then one elementwise pass y = (x - mean) * rstd * w + b. batch_norm in training
// also updates the running statistics on the device (momentum, unbiased variance);
// in eval it normalizes with them. No host synchronization, no float atomics.
#include <climits>

#include "kernels/dtype_dispatch.h"
#include "kernels/norm_shape.h"
#include "cuda/block_reduce.cuh"
#include "cuda/launch.h"
#include "cuda/norm/norm_common.h"
#include "dispatch/args/nn.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"

namespace ember::cuda::norm {

namespace {

// mean[k], rstd[k] = 1 / sqrt(var + eps) and (var not null) the biased var[k] of
// segment k = blockIdx.x (many segments: one block each).
template <typename T>
__global__ void segment_moments_kernel(const T* x, Segments sg, double eps, opmath_t<T>* mean, opmath_t<T>* rstd,
                                       opmath_t<T>* var) {
  using Acc = opmath_t<T>;
  __shared__ double shared[kMaxWarps];
  const int64_t k = blockIdx.x, n = sg.size();
  const T* base = x + k * sg.inner;
  Acc part = 0;
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) part += convert<Acc>(base[sg.offset(j)]);
  const double sum = block_reduce(static_cast<double>(part), SumOp<double>{}, shared);
  const double m = n > 0 ? sum / static_cast<double>(n) : 0.0;
  const Acc am = static_cast<Acc>(m);
  Acc dev = 0;
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    const Acc d = convert<Acc>(base[sg.offset(j)]) - am;
    dev += d * d;
  }
  const double sq = block_reduce(static_cast<double>(dev), SumOp<double>{}, shared);
  if (threadIdx.x == 0) {
    const double v = n > 0 ? sq / static_cast<double>(n) : 0.0;
    mean[k] = am;
    rstd[k] = static_cast<Acc>(1.0 / sqrt(v + eps));
    if (var) var[k] = static_cast<Acc>(v);
  }
}

// Few long segments: part p = blockIdx.y of segment k = blockIdx.x writes
// sums[k * parts + p], the sum over its share of the segment's values of x (center
// null) or of (x - center[k])^2.
template <typename T>
__global__ void segment_part_sums_kernel(const T* x, Segments sg, const opmath_t<T>* center, double* sums) {
  using Acc = opmath_t<T>;
  __shared__ double shared[kMaxWarps];
  const int64_t k = blockIdx.x, p = blockIdx.y, parts = gridDim.y, n = sg.size();
  const int64_t chunk = (n + parts - 1) / parts, j0 = p * chunk, j1 = j0 + chunk < n ? j0 + chunk : n;
  const T* base = x + k * sg.inner;
  const Acc m = center ? center[k] : Acc(0);
  Acc acc = 0;
  for (int64_t j = j0 + threadIdx.x; j < j1; j += blockDim.x) {
    const Acc v = convert<Acc>(base[sg.offset(j)]);
    if (center) {
      const Acc d = v - m;
      acc += d * d;
    } else {
      acc += v;
    }
  }
  const double total = block_reduce(static_cast<double>(acc), SumOp<double>{}, shared);
  if (threadIdx.x == 0) sums[k * parts + p] = total;
}

// Adds each segment's parts in order: its mean (rstd null: the first pass), or
// rstd and (var not null) the biased variance (the second).
template <typename Acc>
__global__ void segment_finish_kernel(int64_t count, int64_t parts, int64_t n, const double* sums, double eps,
                                      Acc* mean, Acc* rstd, Acc* var) {
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < count; k += int64_t(gridDim.x) * blockDim.x) {
    double t = 0;
    for (int64_t p = 0; p < parts; ++p) t += sums[k * parts + p];
    const double v = n > 0 ? t / static_cast<double>(n) : 0.0;
    if (!rstd) {
      mean[k] = static_cast<Acc>(v);
      continue;
    }
    rstd[k] = static_cast<Acc>(1.0 / sqrt(v + eps));
    if (var) var[k] = static_cast<Acc>(v);
  }
}

template <typename T>
void segment_moments(const Tensor& x, const Segments& sg, double eps, const Tensor& mean, const Tensor& rstd,
                     const Tensor& var, cudaStream_t stream) {
  using Acc = opmath_t<T>;
  if (sg.count == 0) return;
  EMBER_CHECK(sg.count <= INT_MAX, "normalization: ", sg.count, " rows exceed the grid's 2^31 - 1 blocks");
  const int threads = segment_threads(sg.size());
  const int64_t parts = segment_parts(sg.count, sg.size(), threads);
  const T* xp = static_cast<const T*>(x.data_ptr());
  Acc* mp = static_cast<Acc*>(mean.data_ptr());
  Acc* rp = static_cast<Acc*>(rstd.data_ptr());
  Acc* vp = var.defined() ? static_cast<Acc*>(var.data_ptr()) : nullptr;
  if (parts == 1) {  // one block per segment, both passes in it
    segment_moments_kernel<T><<<static_cast<unsigned>(sg.count), threads, 0, stream>>>(xp, sg, eps, mp, rp, vp);
    EMBER_CUDA_CHECK_LAUNCH();
    return;
  }
  Tensor sums = empty(IntList{sg.count * parts}, TensorOptions(kFloat64).device(x.device()));
  double* sp = static_cast<double*>(sums.data_ptr());
  const dim3 grid(static_cast<unsigned>(sg.count), static_cast<unsigned>(parts));
  segment_part_sums_kernel<T><<<grid, threads, 0, stream>>>(xp, sg, nullptr, sp);
  EMBER_CUDA_CHECK_LAUNCH();
  segment_finish_kernel<Acc><<<blocks_for(sg.count), kBlockThreads, 0, stream>>>(sg.count, parts, sg.size(), sp, eps,
                                                                                 mp, nullptr, nullptr);
  EMBER_CUDA_CHECK_LAUNCH();
  segment_part_sums_kernel<T><<<grid, threads, 0, stream>>>(xp, sg, mp, sp);
  EMBER_CUDA_CHECK_LAUNCH();
  segment_finish_kernel<Acc><<<blocks_for(sg.count), kBlockThreads, 0, stream>>>(sg.count, parts, sg.size(), sp, eps,
                                                                                 mp, rp, vp);
  EMBER_CUDA_CHECK_LAUNCH();
}

// y = (x - mean[s]) * rstd[s] * w[p] + b[p] (w, b null: 1 and 0).
template <typename T>
__global__ void normalize_kernel(const T* x, T* y, int64_t total, IndexMap map, const opmath_t<T>* mean,
                                 const opmath_t<T>* rstd, const opmath_t<T>* w, const opmath_t<T>* b) {
  using Acc = opmath_t<T>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t s = map.stat(i), p = map.param(i);
    Acc v = (convert<Acc>(x[i]) - mean[s]) * rstd[s];
    if (w) v = v * w[p];
    if (b) v = v + b[p];
    y[i] = convert<T>(v);
  }
}

template <typename T>
void normalize(const Tensor& x, const Tensor& y, const IndexMap& map, const Tensor& mean, const Tensor& rstd,
               const Tensor& w, const Tensor& b, cudaStream_t stream) {
  using Acc = opmath_t<T>;
  const int64_t total = x.numel();
  if (total == 0) return;
  normalize_kernel<T><<<blocks_for(total), kBlockThreads, 0, stream>>>(
      static_cast<const T*>(x.data_ptr()), static_cast<T*>(y.data_ptr()), total, map,
      static_cast<const Acc*>(mean.data_ptr()), static_cast<const Acc*>(rstd.data_ptr()),
      w.defined() ? static_cast<const Acc*>(w.data_ptr()) : nullptr,
      b.defined() ? static_cast<const Acc*>(b.data_ptr()) : nullptr);
  EMBER_CUDA_CHECK_LAUNCH();
}

// ---- layer_norm --------------------------------------------------------------------

// layer_norm: in input, weight?, bias?; attrs normalized_shape, eps; out y, mean, rstd
// (batch dims + ones, opmath dtype).
void layer_norm_cuda(OpCall& c) {
  const Tensor x = c.in(0).contiguous();
  const LayerNormArgs a = LayerNormArgs::from(c);
  const LayerNormShape shape = layer_norm_shape(x, a.normalized_shape.size());
  const int64_t rows = shape.rows, n = shape.n;
  const DimVector& stat_shape = shape.stat_shape;
  const DType sdt = stat_dtype(x.dtype());
  const TensorOptions stat_opts = TensorOptions(sdt).device(x.device());
  Tensor y = empty(x.sizes(), TensorOptions(x.dtype()).device(x.device()));
  Tensor mean = empty(stat_shape, stat_opts), rstd = empty(stat_shape, stat_opts);
  if (rows > 0) {
    LaunchContext ctx(x);
    const Tensor w = c.in(1).defined() ? param_tensor(c.in(1), n, 1, sdt, x.device()) : Tensor();
    const Tensor b = c.in(2).defined() ? param_tensor(c.in(2), n, 0, sdt, x.device()) : Tensor();
    EMBER_DISPATCH_FLOATING(x.dtype(), "layer_norm", [&] {
      segment_moments<scalar_t>(x, Segments{rows, 1, n, n}, a.eps, mean, rstd, Tensor(), ctx.stream);
      if (n > 0) normalize<scalar_t>(x, y, IndexMap{n, rows, 1, n}, mean, rstd, w, b, ctx.stream);
    });
  }
  c.outputs.push_back(y);
  c.outputs.push_back(mean);
  c.outputs.push_back(rstd);
}

// ---- group_norm --------------------------------------------------------------------

// group_norm: in input [N,C,*], weight?, bias?; attrs num_groups, eps; out y, mean
// [N,G], rstd [N,G] (opmath dtype).
void group_norm_cuda(OpCall& c) {
  const Tensor x = c.in(0).contiguous();
  const GroupNormArgs a = GroupNormArgs::from(c);
  const int64_t G = a.num_groups;
  const int64_t N = x.size(0), C = x.size(1);
  const int64_t S = N * C == 0 ? 1 : x.numel() / (N * C);
  const int64_t group_len = C / G * S;
  const DType sdt = stat_dtype(x.dtype());
  const TensorOptions stat_opts = TensorOptions(sdt).device(x.device());
  Tensor y = empty(x.sizes(), TensorOptions(x.dtype()).device(x.device()));
  Tensor mean = empty(IntList{N, G}, stat_opts), rstd = empty(IntList{N, G}, stat_opts);
  if (N * G > 0) {
    LaunchContext ctx(x);
    const Tensor w = c.in(1).defined() ? param_tensor(c.in(1), C, 1, sdt, x.device()) : Tensor();
    const Tensor b = c.in(2).defined() ? param_tensor(c.in(2), C, 0, sdt, x.device()) : Tensor();
    EMBER_DISPATCH_FLOATING(x.dtype(), "group_norm", [&] {
      segment_moments<scalar_t>(x, Segments{N * G, 1, group_len, group_len}, a.eps, mean, rstd, Tensor(), ctx.stream);
      if (group_len > 0)
        normalize<scalar_t>(x, y, IndexMap{group_len, N * G, S, C}, mean, rstd, w, b, ctx.stream);
    });
  }
  c.outputs.push_back(y);
  c.outputs.push_back(mean);
  c.outputs.push_back(rstd);
}

// ---- batch_norm --------------------------------------------------------------------

// Training, per channel k: running_mean = (1 - momentum) running_mean + momentum
// mean, running_var likewise with the unbiased variance (rm / rv null: not kept).
template <typename Acc>
__global__ void update_running_kernel(int64_t C, const Acc* mean, const Acc* var, Acc* rm, Acc* rv, double momentum,
                                      double unbias) {
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < C; k += int64_t(gridDim.x) * blockDim.x) {
    if (rm) rm[k] = static_cast<Acc>((1 - momentum) * static_cast<double>(rm[k]) + momentum * static_cast<double>(mean[k]));
    if (rv)
      rv[k] = static_cast<Acc>((1 - momentum) * static_cast<double>(rv[k]) +
                               momentum * static_cast<double>(var[k]) * unbias);
  }
}

// Eval, per channel k: rstd = 1 / sqrt(running_var + eps) (in place).
template <typename Acc>
__global__ void eval_rstd_kernel(int64_t C, Acc* var_to_rstd, double eps) {
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < C; k += int64_t(gridDim.x) * blockDim.x)
    var_to_rstd[k] = static_cast<Acc>(1.0 / sqrt(static_cast<double>(var_to_rstd[k]) + eps));
}

// A running statistic as a contiguous tensor of the stat dtype that the kernel may
// update in place; write_back() copies it into the running tensor if it is another.
struct RunningStat {
  Tensor given, work;
  RunningStat(const Tensor& t, DType sdt) : given(t) {
    if (t.defined()) work = t.dtype() == sdt && t.is_contiguous() ? t : t.to(sdt).contiguous();
  }
  void write_back() {
    if (given.defined() && !work.is_same(given)) given.copy_(work);
  }
};

// batch_norm: in input [N,C,*], running_mean?, running_var?, weight?, bias?; attrs
// training, momentum, eps; out y, save_mean, save_invstd ([C] opmath; empty in eval).
void batch_norm_cuda(OpCall& c) {
  const Tensor x = c.in(0).contiguous();
  const BatchNormArgs a = BatchNormArgs::from(c);
  const int64_t N = x.size(0), C = x.size(1);
  const int64_t S = N * C == 0 ? 0 : x.numel() / (N * C);
  const DType sdt = stat_dtype(x.dtype());
  const TensorOptions stat_opts = TensorOptions(sdt).device(x.device());
  Tensor y = empty(x.sizes(), TensorOptions(x.dtype()).device(x.device()));
  Tensor save_mean = empty(IntList{a.training ? C : 0}, stat_opts);
  Tensor save_invstd = empty(IntList{a.training ? C : 0}, stat_opts);
  if (C > 0) {
    LaunchContext ctx(x);
    const Tensor w = c.in(3).defined() ? param_tensor(c.in(3), C, 1, sdt, x.device()) : Tensor();
    const Tensor b = c.in(4).defined() ? param_tensor(c.in(4), C, 0, sdt, x.device()) : Tensor();
    Tensor mean = save_mean, rstd = save_invstd;
    if (a.training) {
      const int64_t count = N * S;
      Tensor var = empty(IntList{C}, stat_opts);
      EMBER_DISPATCH_FLOATING(x.dtype(), "batch_norm", [&] {
        segment_moments<scalar_t>(x, Segments{C, N, S, C * S}, a.eps, mean, rstd, var, ctx.stream);
      });
      RunningStat rm(c.in(1), sdt), rv(c.in(2), sdt);
      if (count > 0 && (rm.work.defined() || rv.work.defined())) {  // an empty batch leaves them alone
        const double unbias = count > 1 ? double(count) / double(count - 1) : 1.0;
        EMBER_DISPATCH_FLOATING(sdt, "batch_norm", [&] {
          if constexpr (std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double>) {
            update_running_kernel<scalar_t><<<blocks_for(C), kBlockThreads, 0, ctx.stream>>>(
                C, static_cast<const scalar_t*>(mean.data_ptr()), static_cast<const scalar_t*>(var.data_ptr()),
                rm.work.defined() ? static_cast<scalar_t*>(rm.work.data_ptr()) : nullptr,
                rv.work.defined() ? static_cast<scalar_t*>(rv.work.data_ptr()) : nullptr, a.momentum, unbias);
            EMBER_CUDA_CHECK_LAUNCH();
          }
        });
        rm.write_back();
        rv.write_back();
      }
    } else {
      mean = param_tensor(c.in(1), C, 0, sdt, x.device());
      // a fresh tensor: the running variance itself is not overwritten
      rstd = c.in(2).defined() ? c.in(2).to(sdt, /*copy=*/true).contiguous() : full(IntList{C}, 1.0, stat_opts);
      EMBER_DISPATCH_FLOATING(sdt, "batch_norm", [&] {
        if constexpr (std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double>) {
          eval_rstd_kernel<scalar_t><<<blocks_for(C), kBlockThreads, 0, ctx.stream>>>(
              C, static_cast<scalar_t*>(rstd.data_ptr()), a.eps);
          EMBER_CUDA_CHECK_LAUNCH();
        }
      });
    }
    if (S > 0 && N > 0) {
      EMBER_DISPATCH_FLOATING(x.dtype(), "batch_norm", [&] {
        normalize<scalar_t>(x, y, IndexMap{S, C, S, C}, mean, rstd, w, b, ctx.stream);
      });
    }
  }
  c.outputs.push_back(y);
  c.outputs.push_back(save_mean);
  c.outputs.push_back(save_invstd);
}

}  // namespace

EMBER_REGISTER_KERNEL(layer_norm, CUDA, layer_norm_cuda);
EMBER_REGISTER_KERNEL(group_norm, CUDA, group_norm_cuda);
EMBER_REGISTER_KERNEL(batch_norm, CUDA, batch_norm_cuda);

}  // namespace ember::cuda::norm
