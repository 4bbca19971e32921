// CUDA kernels of batch_norm_backward, layer_norm_backward and group_norm_backward,
// with the CPU's outputs and formulas (lib/cpu/norm_backward.cpp). Per segment
// (norm_common.h: one block per row / group row / channel) the two sums a
// normalization's gradient needs, s = sum of g and dot = sum of g (x - mean)
// (g = dy, times the weight for layer_norm), added in double across the block;
// small per-statistic kernels turn them into the coefficients of
//   dx = (dy w - a - (x - mean) b) rstd
// (the centred form), written by one elementwise pass. Weight and bias gradients are
// summed per column in fixed parts, parts added in order: no atomics, the same
// result on every run.
#include <climits>

#include "kernels/dtype_dispatch.h"
#include "kernels/grad_flags.h"
#include "kernels/restride.h"
#include "cuda/block_reduce.cuh"
#include "cuda/launch.h"
#include "cuda/norm/norm_common.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"

namespace ember::cuda::norm {

namespace {

// Part p = blockIdx.y (of gridDim.y) of segment k = blockIdx.x: the sums over its
// share of the segment's values of g and of g (x - mean), into s_out[k * parts + p]
// and dot_out[k * parts + p]. g = dy (times w[j], the weight of the j-th value, when
// w is not null: layer_norm's rows); the mean of segment k is mean[k / mean_div].
template <typename T>
__global__ void segment_grad_sums_kernel(const T* dy, const T* x, Segments sg, const opmath_t<T>* mean,
                                         int64_t mean_div, const opmath_t<T>* w, double* s_out, double* dot_out) {
  using Acc = opmath_t<T>;
  __shared__ double shared[kMaxWarps];
  const int64_t k = blockIdx.x, p = blockIdx.y, parts = gridDim.y, n = sg.size(), start = k * sg.inner;
  const int64_t chunk = (n + parts - 1) / parts, j0 = p * chunk, j1 = j0 + chunk < n ? j0 + chunk : n;
  const Acc m = mean[k / mean_div];
  Acc s = 0, dot = 0;
  for (int64_t j = j0 + threadIdx.x; j < j1; j += blockDim.x) {
    const int64_t off = start + sg.offset(j);
    Acc g = convert<Acc>(dy[off]);
    if (w) g = g * w[j % sg.inner];
    s += g;
    dot += g * (convert<Acc>(x[off]) - m);
  }
  const double ts = block_reduce(static_cast<double>(s), SumOp<double>{}, shared);
  const double td = block_reduce(static_cast<double>(dot), SumOp<double>{}, shared);
  if (threadIdx.x == 0) {
    s_out[k * parts + p] = ts;
    dot_out[k * parts + p] = td;
  }
}

// s[k], dot[k]: the parts of segment k added in order.
__global__ void finish_grad_sums_kernel(int64_t count, int64_t parts, const double* s_part, const double* dot_part,
                                        double* s, double* dot) {
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < count; k += int64_t(gridDim.x) * blockDim.x) {
    double ts = 0, td = 0;
    for (int64_t p = 0; p < parts; ++p) {
      ts += s_part[k * parts + p];
      td += dot_part[k * parts + p];
    }
    s[k] = ts;
    dot[k] = td;
  }
}

// s[k], dot[k] (double) of each segment: one block per segment, or for few long
// segments (batch_norm's channels) several, their parts added by a second kernel.
template <typename T>
void segment_grad_sums(const Tensor& dy, const Tensor& x, const Segments& sg, const Tensor& mean, int64_t mean_div,
                       const Tensor& w, const Tensor& s, const Tensor& dot, cudaStream_t stream) {
  using Acc = opmath_t<T>;
  if (sg.count == 0) return;
  EMBER_CHECK(sg.count <= INT_MAX, "normalization backward: ", sg.count, " rows exceed the grid's 2^31 - 1 blocks");
  const int threads = segment_threads(sg.size());
  const int64_t parts = segment_parts(sg.count, sg.size(), threads);
  Tensor s_part = s, dot_part = dot;
  if (parts > 1) {
    s_part = empty(IntList{sg.count * parts}, TensorOptions(kFloat64).device(x.device()));
    dot_part = empty(IntList{sg.count * parts}, TensorOptions(kFloat64).device(x.device()));
  }
  const dim3 grid(static_cast<unsigned>(sg.count), static_cast<unsigned>(parts));
  segment_grad_sums_kernel<T><<<grid, threads, 0, stream>>>(
      static_cast<const T*>(dy.data_ptr()), static_cast<const T*>(x.data_ptr()), sg,
      static_cast<const Acc*>(mean.data_ptr()), mean_div, w.defined() ? static_cast<const Acc*>(w.data_ptr()) : nullptr,
      static_cast<double*>(s_part.data_ptr()), static_cast<double*>(dot_part.data_ptr()));
  EMBER_CUDA_CHECK_LAUNCH();
  if (parts == 1) return;
  finish_grad_sums_kernel<<<blocks_for(sg.count), kBlockThreads, 0, stream>>>(
      sg.count, parts, static_cast<const double*>(s_part.data_ptr()), static_cast<const double*>(dot_part.data_ptr()),
      static_cast<double*>(s.data_ptr()), static_cast<double*>(dot.data_ptr()));
  EMBER_CUDA_CHECK_LAUNCH();
}

// dx = (dy w[p] - a[s] - (x - mean[s]) b[s]) rstd[s] (w null: 1).
template <typename T>
__global__ void normalized_grad_kernel(const T* dy, const T* x, T* dx, int64_t total, IndexMap map,
                                       const opmath_t<T>* w, const opmath_t<T>* a, const opmath_t<T>* b,
                                       const opmath_t<T>* mean, const opmath_t<T>* rstd) {
  using Acc = opmath_t<T>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t s = map.stat(i);
    Acc g = convert<Acc>(dy[i]);
    if (w) g = g * w[map.param(i)];
    dx[i] = convert<T>((g - a[s] - (convert<Acc>(x[i]) - mean[s]) * b[s]) * rstd[s]);
  }
}

template <typename T>
void normalized_grad(const Tensor& dy, const Tensor& x, const Tensor& dx, const IndexMap& map, const Tensor& w,
                     const Tensor& a, const Tensor& b, const Tensor& mean, const Tensor& rstd, cudaStream_t stream) {
  using Acc = opmath_t<T>;
  const int64_t total = x.numel();
  if (total == 0) return;
  normalized_grad_kernel<T><<<blocks_for(total), kBlockThreads, 0, stream>>>(
      static_cast<const T*>(dy.data_ptr()), static_cast<const T*>(x.data_ptr()), static_cast<T*>(dx.data_ptr()),
      total, map, w.defined() ? static_cast<const Acc*>(w.data_ptr()) : nullptr,
      static_cast<const Acc*>(a.data_ptr()), static_cast<const Acc*>(b.data_ptr()),
      static_cast<const Acc*>(mean.data_ptr()), static_cast<const Acc*>(rstd.data_ptr()));
  EMBER_CUDA_CHECK_LAUNCH();
}

// ---- layer_norm --------------------------------------------------------------------

// Per row: a = s / n, b = dot / n * rstd^2 (s, dot already weighted).
template <typename Acc>
__global__ void layer_norm_coef_kernel(int64_t rows, int64_t n, const double* s, const double* dot, const Acc* rstd,
                                       Acc* a, Acc* b) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < rows; r += int64_t(gridDim.x) * blockDim.x) {
    a[r] = static_cast<Acc>(s[r] / static_cast<double>(n));
    b[r] = static_cast<Acc>(dot[r] / static_cast<double>(n)) * rstd[r] * rstd[r];
  }
}

// Rows per part of the column sums (each part a blockIdx.y).
constexpr int64_t kColumnPartRows = 64;
constexpr int kColumnThreads = 256;

// Part p = blockIdx.y of the column sums: for its rows r, dw_part[p, j] += dy (x -
// mean[r]) rstd[r], db_part[p, j] += dy (either null: not wanted).
template <typename T>
__global__ void layer_norm_column_parts_kernel(const T* dy, const T* x, int64_t rows, int64_t n,
                                               const opmath_t<T>* mean, const opmath_t<T>* rstd, double* dw_part,
                                               double* db_part) {
  using Acc = opmath_t<T>;
  const int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (j >= n) return;
  const int64_t p = blockIdx.y, r0 = p * kColumnPartRows;
  const int64_t r1 = r0 + kColumnPartRows < rows ? r0 + kColumnPartRows : rows;
  Acc dw = 0, db = 0;
  for (int64_t r = r0; r < r1; ++r) {
    const Acc g = convert<Acc>(dy[r * n + j]);
    dw += g * (convert<Acc>(x[r * n + j]) - mean[r]) * rstd[r];
    db += g;
  }
  if (dw_part) dw_part[p * n + j] = dw;
  if (db_part) db_part[p * n + j] = db;
}

// out[j] = the sum over the parts of part[p, j], in part order.
__global__ void sum_parts_kernel(const double* part, int64_t parts, int64_t n, double* out) {
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < n; j += int64_t(gridDim.x) * blockDim.x) {
    double t = 0;
    for (int64_t p = 0; p < parts; ++p) t += part[p * n + j];
    out[j] = t;
  }
}

// layer_norm_backward: in grad_out, input, mean, rstd, weight?, bias? (only its dtype
// is read); attrs normalized_shape, mask; out grad_input, grad_weight, grad_bias.
void layer_norm_backward_cuda(OpCall& c) {
  const Tensor dy = c.in(0).contiguous(), x = c.in(1).contiguous();
  const Tensor &weight = c.in(4), &bias = c.in(5);
  const LayerNormBackwardArgs args = LayerNormBackwardArgs::from(c);
  const GradFlags want = grad_flags(args.output_mask);
  int64_t n = 1;
  for (int64_t s : args.normalized_shape) n *= s;
  const int64_t rows = n == 0 ? 0 : x.numel() / n;
  const Device dev = x.device();
  const DType sdt = stat_dtype(x.dtype());
  const TensorOptions dbl = TensorOptions(kFloat64).device(dev);
  Tensor dx = want.input ? empty(x.sizes(), TensorOptions(x.dtype()).device(dev)) : Tensor();
  Tensor dw = want.weight ? zeros(IntList{n}, dbl) : Tensor();
  Tensor db = want.bias ? zeros(IntList{n}, dbl) : Tensor();
  if (rows > 0) {
    LaunchContext ctx(x);
    const Tensor mean = param_tensor(c.in(2), rows, 0, sdt, dev), rstd = param_tensor(c.in(3), rows, 1, sdt, dev);
    EMBER_DISPATCH_FLOATING(x.dtype(), "layer_norm_backward", [&] {
      using Acc = opmath_t<scalar_t>;
      if (want.input) {
        const Tensor w = weight.defined() ? param_tensor(weight, n, 1, sdt, dev) : Tensor();
        Tensor s = empty(IntList{rows}, dbl), dot = empty(IntList{rows}, dbl);
        segment_grad_sums<scalar_t>(dy, x, Segments{rows, 1, n, n}, mean, 1, w, s, dot, ctx.stream);
        Tensor a = empty(IntList{rows}, TensorOptions(sdt).device(dev)), b = empty(IntList{rows}, TensorOptions(sdt).device(dev));
        layer_norm_coef_kernel<Acc><<<blocks_for(rows), kBlockThreads, 0, ctx.stream>>>(
            rows, n, static_cast<const double*>(s.data_ptr()), static_cast<const double*>(dot.data_ptr()),
            static_cast<const Acc*>(rstd.data_ptr()), static_cast<Acc*>(a.data_ptr()), static_cast<Acc*>(b.data_ptr()));
        EMBER_CUDA_CHECK_LAUNCH();
        normalized_grad<scalar_t>(dy, x, dx, IndexMap{n, rows, 1, n}, w, a, b, mean, rstd, ctx.stream);
      }
      if (want.weight || want.bias) {
        const int64_t parts = (rows + kColumnPartRows - 1) / kColumnPartRows;
        EMBER_CHECK(parts <= 65535, "layer_norm_backward: ", rows, " rows exceed ", 65535 * kColumnPartRows);
        Tensor dw_part = want.weight ? empty(IntList{parts, n}, dbl) : Tensor();
        Tensor db_part = want.bias ? empty(IntList{parts, n}, dbl) : Tensor();
        const dim3 grid(static_cast<unsigned>((n + kColumnThreads - 1) / kColumnThreads), static_cast<unsigned>(parts));
        layer_norm_column_parts_kernel<scalar_t><<<grid, kColumnThreads, 0, ctx.stream>>>(
            static_cast<const scalar_t*>(dy.data_ptr()), static_cast<const scalar_t*>(x.data_ptr()), rows, n,
            static_cast<const Acc*>(mean.data_ptr()), static_cast<const Acc*>(rstd.data_ptr()),
            want.weight ? static_cast<double*>(dw_part.data_ptr()) : nullptr,
            want.bias ? static_cast<double*>(db_part.data_ptr()) : nullptr);
        EMBER_CUDA_CHECK_LAUNCH();
        for (auto [part, out] : {std::pair{dw_part, dw}, std::pair{db_part, db}}) {
          if (!part.defined()) continue;
          sum_parts_kernel<<<blocks_for(n), kBlockThreads, 0, ctx.stream>>>(
              static_cast<const double*>(part.data_ptr()), parts, n, static_cast<double*>(out.data_ptr()));
          EMBER_CUDA_CHECK_LAUNCH();
        }
      }
    });
  }
  c.outputs.push_back(dx);
  // In normalized_shape, without a dispatched view op (a view made here would reach
  // autograd as a view of the kernel's buffer).
  const DimVector ns(args.normalized_shape.begin(), args.normalized_shape.end());
  auto shaped = [&](const Tensor& g, DType dtype) {
    Tensor flat = g.to(dtype).contiguous();
    return restride(flat, ns, contiguous_strides(ns), flat.storage_offset());
  };
  c.outputs.push_back(dw.defined() ? shaped(dw, param_grad_dtype(weight, x)) : Tensor());
  c.outputs.push_back(db.defined() ? shaped(db, param_grad_dtype(bias, weight.defined() ? weight : x))
                                   : Tensor());
}

// ---- batch_norm --------------------------------------------------------------------

// Per channel k: rstd (train: save_invstd; eval: 1 / sqrt(running_var + eps), in
// place of the running variance's copy), the coefficients a = w s / M, b = w dot
// rstd^2 / M (train; 0 in eval, where the statistics are constants), and the
// weight and bias gradients dot rstd and s (0 for an empty batch).
template <typename Acc>
__global__ void batch_norm_coef_kernel(int64_t C, bool train, int64_t count, double eps, const double* s,
                                       const double* dot, const Acc* w, Acc* rstd, Acc* a, Acc* b, double* dw,
                                       double* db) {
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < C; k += int64_t(gridDim.x) * blockDim.x) {
    const double r = train ? static_cast<double>(rstd[k]) : 1.0 / sqrt(static_cast<double>(rstd[k]) + eps);
    rstd[k] = static_cast<Acc>(r);
    const double wk = w ? static_cast<double>(w[k]) : 1.0, M = static_cast<double>(count);
    const double sk = count > 0 ? s[k] : 0.0, dk = count > 0 ? dot[k] : 0.0;
    a[k] = train && count > 0 ? static_cast<Acc>(wk * sk / M) : Acc(0);
    b[k] = train && count > 0 ? static_cast<Acc>(wk * dk * r * r / M) : Acc(0);
    if (dw) dw[k] = count > 0 ? dk * r : 0.0;  // no NaN from the statistics of an empty batch
    if (db) db[k] = sk;
  }
}

// batch_norm_backward: in grad_out, input, weight?, running_mean, running_var,
// save_mean, save_invstd; attrs train, eps, mask; out grad_input, grad_weight, grad_bias.
void batch_norm_backward_cuda(OpCall& c) {
  const Tensor dy = c.in(0).contiguous(), x = c.in(1).contiguous();
  const Tensor& weight = c.in(2);
  const BatchNormBackwardArgs args = BatchNormBackwardArgs::from(c);
  const GradFlags want = grad_flags(args.output_mask);
  const int64_t N = x.size(0), C = x.size(1);
  const int64_t S = N * C == 0 ? 1 : x.numel() / (N * C);
  const int64_t count = N * S;
  const Device dev = x.device();
  const DType sdt = stat_dtype(x.dtype());
  const TensorOptions dbl = TensorOptions(kFloat64).device(dev), stat = TensorOptions(sdt).device(dev);
  Tensor dx = want.input ? empty(x.sizes(), TensorOptions(x.dtype()).device(dev)) : Tensor();
  Tensor dw = want.weight ? empty(IntList{C}, dbl) : Tensor();
  Tensor db = want.bias ? empty(IntList{C}, dbl) : Tensor();
  if (C > 0) {
    LaunchContext ctx(x);
    const Tensor mean = param_tensor(args.train ? c.in(5) : c.in(3), C, 0, sdt, dev);
    // a fresh copy: the coefficient kernel turns it into rstd in place
    const Tensor& rsrc = args.train ? c.in(6) : c.in(4);
    Tensor rstd = rsrc.defined() ? rsrc.to(sdt, /*copy=*/true).contiguous() : full(IntList{C}, 1.0, stat);
    const Tensor w = weight.defined() ? param_tensor(weight, C, 1, sdt, dev) : Tensor();
    Tensor s = zeros(IntList{C}, dbl), dot = zeros(IntList{C}, dbl);
    Tensor a = empty(IntList{C}, stat), b = empty(IntList{C}, stat);
    const bool sums = count > 0 && (want.weight || want.bias || (want.input && args.train));
    EMBER_DISPATCH_FLOATING(x.dtype(), "batch_norm_backward", [&] {
      using Acc = opmath_t<scalar_t>;
      if (sums) segment_grad_sums<scalar_t>(dy, x, Segments{C, N, S, C * S}, mean, 1, Tensor(), s, dot, ctx.stream);
      batch_norm_coef_kernel<Acc><<<blocks_for(C), kBlockThreads, 0, ctx.stream>>>(
          C, args.train, count, args.eps, static_cast<const double*>(s.data_ptr()),
          static_cast<const double*>(dot.data_ptr()), w.defined() ? static_cast<const Acc*>(w.data_ptr()) : nullptr,
          static_cast<Acc*>(rstd.data_ptr()), static_cast<Acc*>(a.data_ptr()), static_cast<Acc*>(b.data_ptr()),
          want.weight ? static_cast<double*>(dw.data_ptr()) : nullptr,
          want.bias ? static_cast<double*>(db.data_ptr()) : nullptr);
      EMBER_CUDA_CHECK_LAUNCH();
      if (want.input) normalized_grad<scalar_t>(dy, x, dx, IndexMap{S, C, S, C}, w, a, b, mean, rstd, ctx.stream);
    });
  }
  const DType pdt = param_grad_dtype(weight, x);
  c.outputs.push_back(dx);
  c.outputs.push_back(dw.defined() ? dw.to(pdt) : Tensor());
  c.outputs.push_back(db.defined() ? db.to(pdt) : Tensor());
}

// ---- group_norm --------------------------------------------------------------------

// Per group g (sample g / G, rows g D .. g D + D - 1 of [N * C, S]), M = D S:
// a = sum(w s) / M, b = sum(w dot) rstd^2 / M.
template <typename Acc>
__global__ void group_norm_coef_kernel(int64_t groups, int64_t C, int64_t D, int64_t M, const double* s,
                                       const double* dot, const Acc* w, const Acc* rstd, Acc* a, Acc* b) {
  for (int64_t g = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; g < groups; g += int64_t(gridDim.x) * blockDim.x) {
    double sg = 0, dg = 0;
    for (int64_t row = g * D; row < (g + 1) * D; ++row) {
      const double wc = w ? static_cast<double>(w[row % C]) : 1.0;
      sg += wc * s[row];
      dg += wc * dot[row];
    }
    const double r = static_cast<double>(rstd[g]);
    a[g] = static_cast<Acc>(sg / static_cast<double>(M));
    b[g] = static_cast<Acc>(dg * r * r / static_cast<double>(M));
  }
}

// dw[c] = sum over n of dot[n, c] rstd[n, c / D]; db[c] = sum over n of s[n, c].
template <typename Acc>
__global__ void group_norm_param_grad_kernel(int64_t N, int64_t C, int64_t G, int64_t D, const double* s,
                                             const double* dot, const Acc* rstd, double* dw, double* db) {
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < C; c += int64_t(gridDim.x) * blockDim.x) {
    double tw = 0, tb = 0;
    for (int64_t n = 0; n < N; ++n) {
      tw += dot[n * C + c] * static_cast<double>(rstd[n * G + c / D]);
      tb += s[n * C + c];
    }
    if (dw) dw[c] = tw;
    if (db) db[c] = tb;
  }
}

// group_norm_backward: in grad_out, input, mean [N,G], rstd [N,G], weight?; attrs
// groups, mask; out grad_input, grad_weight, grad_bias.
void group_norm_backward_cuda(OpCall& c) {
  const Tensor dy = c.in(0).contiguous(), x = c.in(1).contiguous();
  const Tensor& weight = c.in(4);
  const GroupNormBackwardArgs args = GroupNormBackwardArgs::from(c);
  const int64_t G = args.group;
  const GradFlags want = grad_flags(args.output_mask);
  const int64_t N = x.size(0), C = x.size(1);
  const int64_t S = N * C == 0 ? 1 : x.numel() / (N * C);
  const int64_t D = C / G, rows = N * C;
  const Device dev = x.device();
  const DType sdt = stat_dtype(x.dtype());
  const TensorOptions dbl = TensorOptions(kFloat64).device(dev), stat = TensorOptions(sdt).device(dev);
  Tensor dx = want.input ? empty(x.sizes(), TensorOptions(x.dtype()).device(dev)) : Tensor();
  Tensor dw = want.weight ? zeros(IntList{C}, dbl) : Tensor();
  Tensor db = want.bias ? zeros(IntList{C}, dbl) : Tensor();
  if (rows > 0) {
    LaunchContext ctx(x);
    const Tensor mean = param_tensor(c.in(2), N * G, 0, sdt, dev), rstd = param_tensor(c.in(3), N * G, 1, sdt, dev);
    const Tensor w = weight.defined() ? param_tensor(weight, C, 1, sdt, dev) : Tensor();
    Tensor s = zeros(IntList{rows}, dbl), dot = zeros(IntList{rows}, dbl);
    EMBER_DISPATCH_FLOATING(x.dtype(), "group_norm_backward", [&] {
      using Acc = opmath_t<scalar_t>;
      if (S > 0 && x.numel() > 0)
        segment_grad_sums<scalar_t>(dy, x, Segments{rows, 1, S, S}, mean, D, Tensor(), s, dot, ctx.stream);
      if (want.input && x.numel() > 0) {
        Tensor a = empty(IntList{N * G}, stat), b = empty(IntList{N * G}, stat);
        group_norm_coef_kernel<Acc><<<blocks_for(N * G), kBlockThreads, 0, ctx.stream>>>(
            N * G, C, D, D * S, static_cast<const double*>(s.data_ptr()), static_cast<const double*>(dot.data_ptr()),
            w.defined() ? static_cast<const Acc*>(w.data_ptr()) : nullptr, static_cast<const Acc*>(rstd.data_ptr()),
            static_cast<Acc*>(a.data_ptr()), static_cast<Acc*>(b.data_ptr()));
        EMBER_CUDA_CHECK_LAUNCH();
        normalized_grad<scalar_t>(dy, x, dx, IndexMap{D * S, N * G, S, C}, w, a, b, mean, rstd, ctx.stream);
      }
      if (want.weight || want.bias) {
        group_norm_param_grad_kernel<Acc><<<blocks_for(C), kBlockThreads, 0, ctx.stream>>>(
            N, C, G, D, static_cast<const double*>(s.data_ptr()), static_cast<const double*>(dot.data_ptr()),
            static_cast<const Acc*>(rstd.data_ptr()), want.weight ? static_cast<double*>(dw.data_ptr()) : nullptr,
            want.bias ? static_cast<double*>(db.data_ptr()) : nullptr);
        EMBER_CUDA_CHECK_LAUNCH();
      }
    });
  }
  const DType pdt = param_grad_dtype(weight, x);
  c.outputs.push_back(dx);
  c.outputs.push_back(dw.defined() ? dw.to(pdt) : Tensor());
  c.outputs.push_back(db.defined() ? db.to(pdt) : Tensor());
}

}  // namespace

EMBER_REGISTER_KERNEL(layer_norm_backward, CUDA, layer_norm_backward_cuda);
EMBER_REGISTER_KERNEL(batch_norm_backward, CUDA, batch_norm_backward_cuda);
EMBER_REGISTER_KERNEL(group_norm_backward, CUDA, group_norm_backward_cuda);

}  // namespace ember::cuda::norm
