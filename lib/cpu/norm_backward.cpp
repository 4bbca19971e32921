// Backward of the normalizations (batch_norm, layer_norm, group_norm). Each
// reads the input and grad_out as contiguous [outer, channels, inner], takes
// the two sums a normalization's gradient needs (sum of g and of
// g (x - mean), g = dy * weight) in opmath with blocks added in double, then
// writes dx = (g - a - (x - mean) b) rstd (the centred form: no cancellation
// when the mean is large) while the values summed are still in cache (a row,
// a group, a channel). Weight and bias gradients are summed per part of the
// rows into the part's own buffer, parts added in order: no atomics, and the
// same result on every run.
#include <cmath>

#include "cpu/nn_backward_common.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"

namespace ember::cpu {
namespace {

// Rows to give each thread so that it gets about `elems` elements.
inline int64_t rows_grain(int64_t row_len, int64_t elems = kGrainSize / 2) {
  return std::max<int64_t>(1, elems / std::max<int64_t>(row_len, 1));
}

// ---- layer_norm --------------------------------------------------------------------

// Rows [r0, r1) of n values: dx (if dx is not null), and dw / db (if not null)
// accumulated into the part's buffers.
template <typename T, typename Acc>
EMBER_CLONES void layer_norm_backward_rows(const T* dy, const T* x, const Acc* mean, const Acc* rstd,
                                           const Acc* w, T* dx, Acc* dw, Acc* db, int64_t r0,
                                           int64_t r1, int64_t n) {
  for (int64_t r = r0; r < r1; ++r) {
    const T* dyr = dy + r * n;
    const T* xr = x + r * n;
    const Acc m = mean[r], rs = rstd[r];
    if (dx) {
      double s = 0, dot = 0;
      weighted_grad_moments(dyr, xr, w, n, m, s, dot);
      const Acc a = static_cast<Acc>(s / static_cast<double>(n));
      const Acc b = static_cast<Acc>(dot / static_cast<double>(n)) * rs * rs;
      T* dxr = dx + r * n;
      if (dw && db) {  // the common case: one pass writes all three
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) {
          const Acc g = static_cast<Acc>(dyr[j]), xc = static_cast<Acc>(xr[j]) - m;
          dxr[j] = convert<T>((g * w[j] - a - xc * b) * rs);
          dw[j] += g * xc * rs;
          db[j] += g;
        }
        continue;
      }
#pragma omp simd
      for (int64_t j = 0; j < n; ++j)
        dxr[j] = convert<T>((static_cast<Acc>(dyr[j]) * w[j] - a - (static_cast<Acc>(xr[j]) - m) * b) * rs);
    }
    if (dw) {
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) dw[j] += static_cast<Acc>(dyr[j]) * (static_cast<Acc>(xr[j]) - m) * rs;
    }
    if (db) {
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) db[j] += static_cast<Acc>(dyr[j]);
    }
  }
}

void layer_norm_backward_kernel(OpCall& c) {
  const Tensor dy = c.in(0).contiguous(), x = c.in(1).contiguous();
  const Tensor &weight = c.in(4), &bias = c.in(5);
  const LayerNormBackwardArgs a = LayerNormBackwardArgs::from(c);
  const GradFlags want = grad_flags(a.output_mask);
  int64_t n = 1;
  for (int64_t s : a.normalized_shape) n *= s;
  const int64_t rows = n == 0 ? 0 : x.numel() / n;
  Tensor dx = want.input ? empty(x.sizes(), TensorOptions(x.dtype())) : Tensor();
  Tensor dw, db;
  EMBER_DISPATCH_FLOATING(x.dtype(), "layer_norm_backward", [&] {
    using acc_t = opmath_t<scalar_t>;
    const std::vector<acc_t> w = param_values<acc_t>(weight, n, 1);
    const std::vector<acc_t> mean = param_values<acc_t>(c.in(2), rows, 0);
    const std::vector<acc_t> rstd = param_values<acc_t>(c.in(3), rows, 1);
    // dw / db: one buffer per part of at most 256 rows (summed in opmath),
    // parts added in double: float sums stay short for any number of rows.
    const int64_t parts = (want.weight || want.bias) ? std::max(num_parts(rows, rows_grain(n)), (rows + 255) / 256) : 1;
    std::vector<acc_t> dw_parts(want.weight ? parts * n : 0, 0), db_parts(want.bias ? parts * n : 0, 0);
    const scalar_t* dyp = static_cast<const scalar_t*>(dy.data_ptr());
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    scalar_t* dxp = want.input ? static_cast<scalar_t*>(dx.data_ptr()) : nullptr;
    auto run = [&](int64_t p, int64_t r0, int64_t r1) {
      layer_norm_backward_rows(dyp, xp, mean.data(), rstd.data(), w.data(), dxp,
                               want.weight ? dw_parts.data() + p * n : nullptr,
                               want.bias ? db_parts.data() + p * n : nullptr, r0, r1, n);
    };
    if (want.weight || want.bias) parallel_parts(rows, parts, run);
    else parallel_for(0, rows, rows_grain(n), [&](int64_t r0, int64_t r1) { run(0, r0, r1); });
    auto total = [&](const std::vector<acc_t>& buf) {
      std::vector<double> t(static_cast<size_t>(n), 0.0);
      for (int64_t p = 0; p < parts; ++p)
        for (int64_t j = 0; j < n; ++j) t[j] += buf[p * n + j];
      return t;
    };
    if (want.weight) dw = tensor_of(total(dw_parts), a.normalized_shape, param_grad_dtype(weight, x));
    if (want.bias)
      db = tensor_of(total(db_parts), a.normalized_shape, param_grad_dtype(bias, weight.defined() ? weight : x));
  });
  c.outputs.push_back(dx);
  c.outputs.push_back(dw);
  c.outputs.push_back(db);
}

// ---- batch_norm --------------------------------------------------------------------

// Per-channel statistics and the coefficients of dx (see normalized_grad):
// train: a = w sum(dy) / M, b = w sum(dy (x - mean)) rstd^2 / M; eval: the
// statistics are constants, dx = dy w rstd (a = b = 0).
struct BatchNormGrad {
  bool train;
  int64_t count;  // M = N * S
  std::vector<double> mean, rstd, w, s, dot;
  template <typename Acc>
  void coefficients(int64_t k, Acc* out) const {  // w, a, b, mean, rstd
    const double M = static_cast<double>(count);
    out[0] = static_cast<Acc>(w[k]);
    out[1] = train ? static_cast<Acc>(w[k] * s[k] / M) : Acc(0);
    out[2] = train ? static_cast<Acc>(w[k] * dot[k] * rstd[k] * rstd[k] / M) : Acc(0);
    out[3] = static_cast<Acc>(mean[k]);
    out[4] = static_cast<Acc>(rstd[k]);
  }
};

// S > 1, channels [c0, c1): each channel's sums over its N rows of S values,
// then (if dx) its dx while those rows are still in cache.
template <typename T>
EMBER_CLONES void batch_norm_channels(const T* dy, const T* x, T* dx, int64_t c0, int64_t c1, int64_t N,
                                      int64_t C, int64_t S, bool sums, BatchNormGrad& bn) {
  using acc_t = opmath_t<T>;
  for (int64_t k = c0; k < c1; ++k) {
    if (sums) {
      double s = 0, dot = 0;
      for (int64_t n = 0; n < N; ++n) grad_moments(dy + (n * C + k) * S, x + (n * C + k) * S, S, bn.mean[k], s, dot);
      bn.s[k] = s;
      bn.dot[k] = dot;
    }
    if (!dx) continue;
    acc_t q[5];
    bn.coefficients(k, q);
    for (int64_t n = 0; n < N; ++n) {
      const int64_t off = (n * C + k) * S;
      normalized_grad(dy + off, x + off, dx + off, S, q[0], q[1], q[2], q[3], q[4]);
    }
  }
}

// S > 1, rows [r0, r1) of the N * C rows: sums into the part's buffers (for
// few channels: parallel over rows instead of channels).
template <typename T>
EMBER_CLONES void batch_norm_row_sums(const T* dy, const T* x, int64_t r0, int64_t r1, int64_t C, int64_t S,
                                      const double* mean, double* s, double* dot) {
  for (int64_t r = r0; r < r1; ++r) grad_moments(dy + r * S, x + r * S, S, mean[r % C], s[r % C], dot[r % C]);
}

// S == 1, rows [r0, r1) of C values: sums vectorized across channels, in
// opmath over blocks of 64 rows, blocks added in double. Eval mode's dx
// (dy * scale, not depending on the sums) is written in the same pass when
// dx is not null.
template <typename T>
EMBER_CLONES void batch_norm_column_sums(const T* dy, const T* x, int64_t r0, int64_t r1, int64_t C,
                                         const opmath_t<T>* mean, opmath_t<T>* bs, opmath_t<T>* bd, double* s,
                                         double* dot, T* dx, const opmath_t<T>* scale) {
  using acc_t = opmath_t<T>;
  for (int64_t b = r0; b < r1; b += 64) {
    const int64_t e = std::min(r1, b + 64);
    for (int64_t k = 0; k < C; ++k) bs[k] = bd[k] = 0;
    for (int64_t r = b; r < e; ++r) {
      const T* dyr = dy + r * C;
      const T* xr = x + r * C;
#pragma omp simd
      for (int64_t k = 0; k < C; ++k) {
        const acc_t g = static_cast<acc_t>(dyr[k]);
        bs[k] += g;
        bd[k] += g * (static_cast<acc_t>(xr[k]) - mean[k]);
      }
      if (dx) {
        T* dxr = dx + r * C;
#pragma omp simd
        for (int64_t k = 0; k < C; ++k) dxr[k] = convert<T>(static_cast<acc_t>(dyr[k]) * scale[k]);
      }
    }
    for (int64_t k = 0; k < C; ++k) {
      s[k] += bs[k];
      dot[k] += bd[k];
    }
  }
}

// S == 1, dx over rows [r0, r1) of C values; q: the coefficients, 5 arrays of C.
template <typename T, typename Acc>
EMBER_CLONES void batch_norm_dx_columns(const T* dy, const T* x, T* dx, int64_t r0, int64_t r1, int64_t C,
                                        const Acc* q) {
  const Acc *w = q, *a = q + C, *b = q + 2 * C, *mean = q + 3 * C, *rstd = q + 4 * C;
  for (int64_t r = r0; r < r1; ++r) {
    const T* dyr = dy + r * C;
    const T* xr = x + r * C;
    T* dxr = dx + r * C;
#pragma omp simd
    for (int64_t k = 0; k < C; ++k)
      dxr[k] = convert<T>((static_cast<Acc>(dyr[k]) * w[k] - a[k] - (static_cast<Acc>(xr[k]) - mean[k]) * b[k]) * rstd[k]);
  }
}

// Sums (parts of the rows, each with its own buffers, added in part order);
// for S == 1 also eval mode's dx when dx is not null.
template <typename T>
void batch_norm_sums_by_rows(const T* dy, const T* x, T* dx, int64_t N, int64_t C, int64_t S, BatchNormGrad& bn) {
  using acc_t = opmath_t<T>;
  const int64_t rows = S == 1 ? N : N * C;
  const int64_t parts = num_parts(rows, rows_grain(S == 1 ? C : S));
  std::vector<double> s_parts(parts * C, 0.0), dot_parts(parts * C, 0.0);
  std::vector<acc_t> mean_acc(bn.mean.begin(), bn.mean.end()), scale(C);
  for (int64_t k = 0; k < C; ++k) scale[k] = static_cast<acc_t>(bn.w[k] * bn.rstd[k]);
  parallel_parts(rows, parts, [&](int64_t p, int64_t r0, int64_t r1) {
    if (S > 1) {
      batch_norm_row_sums(dy, x, r0, r1, C, S, bn.mean.data(), s_parts.data() + p * C, dot_parts.data() + p * C);
      return;
    }
    std::vector<acc_t> bs(C), bd(C);
    batch_norm_column_sums(dy, x, r0, r1, C, mean_acc.data(), bs.data(), bd.data(), s_parts.data() + p * C,
                           dot_parts.data() + p * C, dx, scale.data());
  });
  for (int64_t p = 0; p < parts; ++p)
    for (int64_t k = 0; k < C; ++k) {
      bn.s[k] += s_parts[p * C + k];
      bn.dot[k] += dot_parts[p * C + k];
    }
}

template <typename T>
void batch_norm_backward_impl(const T* dy, const T* x, T* dx, int64_t N, int64_t C, int64_t S, bool sums,
                              BatchNormGrad& bn) {
  using acc_t = opmath_t<T>;
  // Many channels of S > 1 values: one pass per channel (sums, then dx from cache).
  if (S > 1 && C >= max_threads()) {
    parallel_for(0, C, rows_grain(N * S), [&](int64_t c0, int64_t c1) {
      batch_norm_channels(dy, x, dx, c0, c1, N, C, S, sums, bn);
    });
    return;
  }
  const bool fused_dx = S == 1 && !bn.train;  // eval: dx is written with the sums
  if (sums) batch_norm_sums_by_rows(dy, x, fused_dx ? dx : nullptr, N, C, S, bn);
  if (!dx || (sums && fused_dx)) return;
  std::vector<acc_t> q(5 * C);
  for (int64_t k = 0; k < C; ++k) {
    acc_t v[5];
    bn.coefficients(k, v);
    for (int i = 0; i < 5; ++i) q[i * C + k] = v[i];
  }
  if (S == 1) {
    parallel_for(0, N, rows_grain(C), [&](int64_t r0, int64_t r1) {
      batch_norm_dx_columns(dy, x, dx, r0, r1, C, q.data());
    });
    return;
  }
  parallel_for(0, N * C, rows_grain(S), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t k = r % C;
      normalized_grad(dy + r * S, x + r * S, dx + r * S, S, q[k], q[C + k], q[2 * C + k], q[3 * C + k], q[4 * C + k]);
    }
  });
}

void batch_norm_backward_kernel(OpCall& c) {
  const Tensor dy = c.in(0).contiguous(), x = c.in(1).contiguous();
  const Tensor& weight = c.in(2);
  const BatchNormBackwardArgs a = BatchNormBackwardArgs::from(c);
  const GradFlags want = grad_flags(a.output_mask);
  const int64_t N = x.size(0), C = x.size(1);
  const int64_t S = N * C == 0 ? 1 : x.numel() / (N * C);
  BatchNormGrad bn{a.train, N * S, {}, {}, param_values<double>(weight, C, 1), std::vector<double>(C, 0.0),
                   std::vector<double>(C, 0.0)};
  if (a.train) {
    bn.mean = param_values<double>(c.in(5), C, 0);
    bn.rstd = param_values<double>(c.in(6), C, 1);
  } else {
    bn.mean = param_values<double>(c.in(3), C, 0);
    bn.rstd = param_values<double>(c.in(4), C, 1);
    for (double& v : bn.rstd) v = 1.0 / std::sqrt(v + a.eps);
  }
  const bool sums = bn.count > 0 && (want.weight || want.bias || (want.input && a.train));
  Tensor dx = want.input ? empty(x.sizes(), TensorOptions(x.dtype())) : Tensor();
  if (x.numel() > 0 && (sums || want.input)) {
    EMBER_DISPATCH_FLOATING(x.dtype(), "batch_norm_backward", [&] {
      batch_norm_backward_impl(static_cast<const scalar_t*>(dy.data_ptr()), static_cast<const scalar_t*>(x.data_ptr()),
                               want.input ? static_cast<scalar_t*>(dx.data_ptr()) : nullptr, N, C, S, sums, bn);
    });
  }
  Tensor dw, db;
  const DType pdt = param_grad_dtype(weight, x);
  if (want.weight) {
    std::vector<double> g(C);
    for (int64_t k = 0; k < C; ++k) g[k] = bn.count > 0 ? bn.dot[k] * bn.rstd[k] : 0.0;  // no NaN stats
    dw = tensor_of(g, {C}, pdt);
  }
  if (want.bias) db = tensor_of(bn.s, {C}, pdt);
  c.outputs.push_back(dx);
  c.outputs.push_back(dw);
  c.outputs.push_back(db);
}

// ---- group_norm --------------------------------------------------------------------

// Groups [g0, g1) of x viewed as [N * C, S] (group g: rows g D .. g D + D - 1):
// each row's s = sum of dy and dot = sum of dy (x - mean), then the group's dx
// while its D * S values are still in cache. Per group, with M = D S:
// a = sum(dy w) / M, b = sum(dy w (x - mean)) rstd^2 / M (see normalized_grad).
template <typename T>
EMBER_CLONES void group_norm_backward_groups(const T* dy, const T* x, T* dx, int64_t g0, int64_t g1, int64_t C,
                                             int64_t S, int64_t D, const double* mean, const double* rstd,
                                             const double* w, double* s, double* dot) {
  using acc_t = opmath_t<T>;
  const double M = static_cast<double>(D * S);
  for (int64_t g = g0; g < g1; ++g) {
    double sg = 0, dg = 0;
    for (int64_t row = g * D; row < (g + 1) * D; ++row) {
      s[row] = dot[row] = 0;
      grad_moments(dy + row * S, x + row * S, S, mean[g], s[row], dot[row]);
      sg += w[row % C] * s[row];
      dg += w[row % C] * dot[row];
    }
    if (!dx) continue;
    const acc_t a = static_cast<acc_t>(sg / M), b = static_cast<acc_t>(dg * rstd[g] * rstd[g] / M);
    const acc_t m = static_cast<acc_t>(mean[g]), r = static_cast<acc_t>(rstd[g]);
    for (int64_t row = g * D; row < (g + 1) * D; ++row)
      normalized_grad(dy + row * S, x + row * S, dx + row * S, S, static_cast<acc_t>(w[row % C]), a, b, m, r);
  }
}

void group_norm_backward_kernel(OpCall& c) {
  const Tensor dy = c.in(0).contiguous(), x = c.in(1).contiguous();
  const Tensor& weight = c.in(4);
  const GroupNormBackwardArgs a = GroupNormBackwardArgs::from(c);
  const int64_t G = a.group;
  const GradFlags want = grad_flags(a.output_mask);
  const int64_t N = x.size(0), C = x.size(1);
  const int64_t S = N * C == 0 ? 1 : x.numel() / (N * C);
  const int64_t D = C / G, rows = N * C;
  const std::vector<double> mean = param_values<double>(c.in(2), N * G, 0);
  const std::vector<double> rstd = param_values<double>(c.in(3), N * G, 1);
  const std::vector<double> w = param_values<double>(weight, C, 1);
  std::vector<double> s(rows, 0.0), dot(rows, 0.0);
  Tensor dx = want.input ? empty(x.sizes(), TensorOptions(x.dtype())) : Tensor();
  EMBER_DISPATCH_FLOATING(x.dtype(), "group_norm_backward", [&] {
    const scalar_t* dyp = static_cast<const scalar_t*>(dy.data_ptr());
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    scalar_t* dxp = want.input && x.numel() > 0 ? static_cast<scalar_t*>(dx.data_ptr()) : nullptr;
    parallel_for(0, N * G, rows_grain(D * S), [&](int64_t g0, int64_t g1) {
      group_norm_backward_groups(dyp, xp, dxp, g0, g1, C, S, D, mean.data(), rstd.data(), w.data(), s.data(),
                                 dot.data());
    });
  });
  // dw[c] = sum over n of dot[n, c] rstd[n, g]; db[c] = sum over n of s[n, c].
  std::vector<double> gw(C, 0.0), gb(C, 0.0);
  for (int64_t row = 0; row < rows; ++row) {
    gw[row % C] += dot[row] * rstd[row / D];
    gb[row % C] += s[row];
  }
  const DType pdt = param_grad_dtype(weight, x);
  c.outputs.push_back(dx);
  c.outputs.push_back(want.weight ? tensor_of(gw, {C}, pdt) : Tensor());
  c.outputs.push_back(want.bias ? tensor_of(gb, {C}, pdt) : Tensor());
}

EMBER_REGISTER_KERNEL(layer_norm_backward, CPU, layer_norm_backward_kernel);
EMBER_REGISTER_KERNEL(batch_norm_backward, CPU, batch_norm_backward_kernel);
EMBER_REGISTER_KERNEL(group_norm_backward, CPU, group_norm_backward_kernel);

}  // namespace
}  // namespace ember::cpu
