// Normalization kernels: batch_norm, layer_norm, group_norm. Each computes
// statistics in opmath (float for float16/bfloat16/float32, double for
// float64; blocks of a long row are added in double), then applies
// y = x * scale + shift with per-row or per-channel scale and shift.
// Inputs are made contiguous and read as [outer, channels, inner].
#include <cmath>

#include "cpu/nn_common.h"
#include "dispatch/args/nn.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"

namespace ember::cpu {
namespace {

DType stat_dtype(DType t) { return t == kFloat64 ? kFloat64 : kFloat32; }

// Sum of x[0..n) and of (x - mean)^2, each vectorized in Acc within blocks.
template <typename T>
double block_sum(const T* x, int64_t n) {
  return dense_sum(x, n);
}

template <typename T>
double block_sq_dev(const T* x, int64_t n, double mean) {
  using acc_t = opmath_t<T>;
  const acc_t m = static_cast<acc_t>(mean);
  double total = 0;
  for (int64_t b = 0; b < n; b += 1024) {
    int64_t e = std::min(n, b + 1024);
    acc_t s = 0;
#pragma omp simd reduction(+ : s)
    for (int64_t i = b; i < e; ++i) {
      acc_t d = static_cast<acc_t>(x[i]) - m;
      s += d * d;
    }
    total += s;
  }
  return total;
}

// Mean and biased variance of the n values x[0..n) (two passes: exact for
// data with a large mean, unlike E[x^2] - E[x]^2).
template <typename T>
inline void moments(const T* x, int64_t n, double& mean, double& var) {
  mean = n > 0 ? block_sum(x, n) / static_cast<double>(n) : 0.0;
  var = n > 0 ? block_sq_dev(x, n, mean) / static_cast<double>(n) : 0.0;
}

// y = x * scale + shift over n contiguous values.
template <typename T, typename Acc>
inline void affine_row(const T* x, T* y, int64_t n, Acc scale, Acc shift) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = convert<T>(static_cast<Acc>(x[i]) * scale + shift);
}

// y = (x - mean) * rstd * w + b over a row (layer_norm's order of operations).
template <typename T, typename Acc>
inline void normalize_row(const T* x, T* y, int64_t n, Acc mean, Acc rstd, const Acc* w, const Acc* b) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) y[j] = convert<T>((static_cast<Acc>(x[j]) - mean) * rstd * w[j] + b[j]);
}

// Rows to give each thread so that it gets about `elems` elements.
inline int64_t rows_grain(int64_t row_len, int64_t elems = kGrainSize / 2) {
  return std::max<int64_t>(1, elems / std::max<int64_t>(row_len, 1));
}

// ---- layer_norm --------------------------------------------------------------------

// Rows [r0, r1) of n values: statistics, then y = (x - mean) * rstd * w + b
// (w, b null: no affine part).
template <typename T, typename Acc>
EMBER_CLONES void layer_norm_rows(const T* x, T* y, Acc* mean, Acc* rstd, int64_t r0, int64_t r1,
                                  int64_t n, double eps, const Acc* w, const Acc* b) {
  for (int64_t r = r0; r < r1; ++r) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    double m, var;
    moments(xr, n, m, var);
    const Acc rs = static_cast<Acc>(1.0 / std::sqrt(var + eps)), am = static_cast<Acc>(m);
    mean[r] = am;
    rstd[r] = rs;
    if (w) normalize_row(xr, yr, n, am, rs, w, b);
    else affine_row(xr, yr, n, rs, -am * rs);
  }
}

void layer_norm_kernel(OpCall& c) {
  const Tensor x = c.in(0).contiguous();
  const LayerNormArgs a = LayerNormArgs::from(c);
  const LayerNormShape shape = layer_norm_shape(x, a.normalized_shape.size());
  const int64_t rows = shape.rows, n = shape.n;
  const DimVector& stat_shape = shape.stat_shape;
  Tensor y = empty(x.sizes(), TensorOptions(x.dtype()));
  Tensor mean = empty(stat_shape, TensorOptions(stat_dtype(x.dtype())));
  Tensor rstd = empty(stat_shape, TensorOptions(stat_dtype(x.dtype())));
  EMBER_DISPATCH_FLOATING(x.dtype(), "layer_norm", [&] {
    using acc_t = opmath_t<scalar_t>;
    const std::vector<acc_t> w = param_values<acc_t>(c.in(1), n, 1);
    const std::vector<acc_t> b = param_values<acc_t>(c.in(2), n, 0);
    const bool affine = c.in(1).defined() || c.in(2).defined();
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    scalar_t* yp = static_cast<scalar_t*>(y.data_ptr());
    acc_t* mp = static_cast<acc_t*>(mean.data_ptr());
    acc_t* rp = static_cast<acc_t*>(rstd.data_ptr());
    parallel_for(0, rows, rows_grain(n), [&](int64_t r0, int64_t r1) {
      layer_norm_rows(xp, yp, mp, rp, r0, r1, n, a.eps, affine ? w.data() : nullptr, b.data());
    });
  });
  c.outputs.push_back(y);
  c.outputs.push_back(mean);
  c.outputs.push_back(rstd);
}

// ---- batch_norm --------------------------------------------------------------------

// Sum over n of x[n, c, :] and of (x[n, c, :] - mean)^2 for x viewed as [N, C, S].
template <typename T>
EMBER_CLONES void channel_moments_spatial(const T* x, int64_t N, int64_t C, int64_t S, int64_t c,
                                          double& mean, double& var) {
  const double count = static_cast<double>(N * S);
  double s = 0;
  for (int64_t n = 0; n < N; ++n) s += block_sum(x + (n * C + c) * S, S);
  mean = s / count;
  double v = 0;
  for (int64_t n = 0; n < N; ++n) v += block_sq_dev(x + (n * C + c) * S, S, mean);
  var = v / count;
}

// Means and variances of the columns [c0, c1) of x viewed as [N, C]: whole
// rows are accumulated into per-channel sums (vectorized across channels).
template <typename T>
EMBER_CLONES void column_moments(const T* x, int64_t N, int64_t C, int64_t c0, int64_t c1, double* m,
                                 double* v) {
  const double count = static_cast<double>(N);
  for (int64_t c = c0; c < c1; ++c) m[c] = v[c] = 0;
  for (int64_t n = 0; n < N; ++n) {
    const T* row = x + n * C;
#pragma omp simd
    for (int64_t c = c0; c < c1; ++c) m[c] += static_cast<double>(static_cast<opmath_t<T>>(row[c]));
  }
  for (int64_t c = c0; c < c1; ++c) m[c] /= count;
  for (int64_t n = 0; n < N; ++n) {
    const T* row = x + n * C;
#pragma omp simd
    for (int64_t c = c0; c < c1; ++c) {
      double d = static_cast<double>(static_cast<opmath_t<T>>(row[c])) - m[c];
      v[c] += d * d;
    }
  }
  for (int64_t c = c0; c < c1; ++c) v[c] /= count;
}

// Means and variances per channel of x viewed as [N, C, S] for a small S (a 2x2 or
// 3x3 map): each row of C * S values is added into per-position sums (vectorized along
// the row), then the S positions of each channel are folded. Two passes, as moments().
// Per channel, N runs of S values each cost a loop set-up worth more than the run:
// at [32, 64, 2, 2] that made batch_norm's forward slower than PyTorch's.
template <typename T>
EMBER_CLONES void small_spatial_moments(const T* x, int64_t N, int64_t C, int64_t S, double* mean, double* var,
                                        double* acc, double* centre) {
  const int64_t row = C * S;
  const double count = static_cast<double>(N * S);
  for (int64_t i = 0; i < row; ++i) acc[i] = 0;
  for (int64_t n = 0; n < N; ++n) {
    const T* r = x + n * row;
#pragma omp simd
    for (int64_t i = 0; i < row; ++i) acc[i] += static_cast<double>(static_cast<opmath_t<T>>(r[i]));
  }
  for (int64_t c = 0; c < C; ++c) {
    double s = 0;
    for (int64_t k = 0; k < S; ++k) s += acc[c * S + k];
    mean[c] = s / count;
    for (int64_t k = 0; k < S; ++k) centre[c * S + k] = mean[c];
  }
  for (int64_t i = 0; i < row; ++i) acc[i] = 0;
  for (int64_t n = 0; n < N; ++n) {
    const T* r = x + n * row;
#pragma omp simd
    for (int64_t i = 0; i < row; ++i) {
      const double d = static_cast<double>(static_cast<opmath_t<T>>(r[i])) - centre[i];
      acc[i] += d * d;
    }
  }
  for (int64_t c = 0; c < C; ++c) {
    double v = 0;
    for (int64_t k = 0; k < S; ++k) v += acc[c * S + k];
    var[c] = v / count;
  }
}

// Spatial sizes below this take small_spatial_moments (on one thread: up to
// kSmallSpatialWork values, a few hundred microseconds at most).
constexpr int64_t kSmallSpatial = 16;
constexpr int64_t kSmallSpatialWork = int64_t(1) << 20;

// Per-channel mean and biased variance of x viewed as [N, C, S].
template <typename T>
void channel_moments(const T* x, int64_t N, int64_t C, int64_t S, std::vector<double>& mean,
                     std::vector<double>& var) {
  if (S > 1 && S < kSmallSpatial && N * C * S <= kSmallSpatialWork) {
    std::vector<double> acc(static_cast<size_t>(C * S)), centre(static_cast<size_t>(C * S));
    small_spatial_moments(x, N, C, S, mean.data(), var.data(), acc.data(), centre.data());
    return;
  }
  if (S > 1) {  // each channel is N contiguous runs of S values
    parallel_for(0, C, rows_grain(N * S), [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) channel_moments_spatial(x, N, C, S, c, mean[c], var[c]);
    });
    return;
  }
  parallel_for(0, C, rows_grain(N, 1024), [&](int64_t c0, int64_t c1) {
    column_moments(x, N, C, c0, c1, mean.data(), var.data());
  });
}

// y[c] = x[c] * scale[c] + shift[c] over a row of C channels.
template <typename T, typename Acc>
EMBER_CLONES void affine_columns(const T* x, T* y, int64_t C, const Acc* scale, const Acc* shift) {
#pragma omp simd
  for (int64_t c = 0; c < C; ++c) y[c] = convert<T>(static_cast<Acc>(x[c]) * scale[c] + shift[c]);
}

// Rows [r0, r1) of S values of x viewed as [N * C, S]: y = x * scale[c] + shift[c].
template <typename T, typename Acc>
EMBER_CLONES void channel_rows_affine(const T* x, T* y, int64_t r0, int64_t r1, int64_t S, int64_t C,
                                      const Acc* scale, const Acc* shift) {
  for (int64_t r = r0; r < r1; ++r) affine_row(x + r * S, y + r * S, S, scale[r % C], shift[r % C]);
}

// y[n, c, s] = x[n, c, s] * scale[c] + shift[c].
template <typename T, typename Acc>
void apply_channel_affine(const T* x, T* y, int64_t N, int64_t C, int64_t S,
                          const std::vector<Acc>& scale, const std::vector<Acc>& shift) {
  if (S == 1) {
    parallel_for(0, N, rows_grain(C), [&](int64_t n0, int64_t n1) {
      for (int64_t n = n0; n < n1; ++n) affine_columns(x + n * C, y + n * C, C, scale.data(), shift.data());
    });
    return;
  }
  if (S < kSmallSpatial) {
    // Runs of S < 16 values: scale and shift repeated along a row of C * S values,
    // which then vectorizes as the S == 1 case does.
    const int64_t row = C * S;
    std::vector<Acc> row_scale(static_cast<size_t>(row)), row_shift(static_cast<size_t>(row));
    for (int64_t i = 0; i < row; ++i) {
      row_scale[static_cast<size_t>(i)] = scale[static_cast<size_t>(i / S)];
      row_shift[static_cast<size_t>(i)] = shift[static_cast<size_t>(i / S)];
    }
    parallel_for(0, N, rows_grain(row), [&](int64_t n0, int64_t n1) {
      for (int64_t n = n0; n < n1; ++n)
        affine_columns(x + n * row, y + n * row, row, row_scale.data(), row_shift.data());
    });
    return;
  }
  parallel_for(0, N * C, rows_grain(S), [&](int64_t r0, int64_t r1) {
    channel_rows_affine(x, y, r0, r1, S, C, scale.data(), shift.data());
  });
}

void batch_norm_kernel(OpCall& c) {
  const Tensor x = c.in(0).contiguous();
  const Tensor &running_mean = c.in(1), &running_var = c.in(2);
  const BatchNormArgs a = BatchNormArgs::from(c);
  const int64_t N = x.size(0), C = x.size(1);
  const int64_t S = N * C == 0 ? 0 : x.numel() / (N * C);
  const TensorOptions stat_opts(stat_dtype(x.dtype()));
  Tensor y = empty(x.sizes(), TensorOptions(x.dtype()));
  Tensor save_mean = empty(IntList{a.training ? C : 0}, stat_opts);
  Tensor save_invstd = empty(IntList{a.training ? C : 0}, stat_opts);
  EMBER_DISPATCH_FLOATING(x.dtype(), "batch_norm", [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    std::vector<double> mean(C, 0.0), var(C, 0.0);
    if (a.training) {
      channel_moments(xp, N, C, S, mean, var);
      const int64_t count = N * S;
      if (count > 0) {  // an empty batch leaves the running stats alone (as PyTorch)
        const double unbias = count > 1 ? double(count) / double(count - 1) : 1.0;
        if (running_mean.defined()) {
          std::vector<double> rm = param_values<double>(running_mean, C, 0);
          for (int64_t k = 0; k < C; ++k) rm[k] = (1 - a.momentum) * rm[k] + a.momentum * mean[k];
          store_values(running_mean, rm);
        }
        if (running_var.defined()) {
          std::vector<double> rv = param_values<double>(running_var, C, 1);
          for (int64_t k = 0; k < C; ++k) rv[k] = (1 - a.momentum) * rv[k] + a.momentum * var[k] * unbias;
          store_values(running_var, rv);
        }
      }
    } else {
      mean = param_values<double>(running_mean, C, 0);
      var = param_values<double>(running_var, C, 1);
    }
    const std::vector<double> w = param_values<double>(c.in(3), C, 1);
    const std::vector<double> b = param_values<double>(c.in(4), C, 0);
    std::vector<acc_t> scale(C), shift(C);
    for (int64_t k = 0; k < C; ++k) {
      double invstd = 1.0 / std::sqrt(var[k] + a.eps);
      scale[k] = static_cast<acc_t>(invstd * w[k]);
      shift[k] = static_cast<acc_t>(b[k] - mean[k] * invstd * w[k]);
      if (a.training) {
        static_cast<acc_t*>(save_mean.data_ptr())[k] = static_cast<acc_t>(mean[k]);
        static_cast<acc_t*>(save_invstd.data_ptr())[k] = static_cast<acc_t>(invstd);
      }
    }
    apply_channel_affine(xp, static_cast<scalar_t*>(y.data_ptr()), N, C, S, scale, shift);
  });
  c.outputs.push_back(y);
  c.outputs.push_back(save_mean);
  c.outputs.push_back(save_invstd);
}

// ---- group_norm --------------------------------------------------------------------

// Groups [g0, g1) (group g: sample g / G, channels (g % G) * D ...; D * S
// contiguous values): statistics, then y = x * scale + shift per channel
// while the group is still in cache.
template <typename T, typename Acc>
EMBER_CLONES void group_norm_groups(const T* x, T* y, Acc* mean, Acc* rstd, int64_t g0, int64_t g1,
                                    int64_t G, int64_t D, int64_t S, double eps, const Acc* w,
                                    const Acc* b) {
  const int64_t len = D * S;
  for (int64_t g = g0; g < g1; ++g) {
    double m, var;
    moments(x + g * len, len, m, var);
    const Acc am = static_cast<Acc>(m), rs = static_cast<Acc>(1.0 / std::sqrt(var + eps));
    mean[g] = am;
    rstd[g] = rs;
    for (int64_t d = 0; d < D; ++d) {
      const int64_t ch = (g % G) * D + d, off = g * len + d * S;
      const Acc scale = rs * w[ch];
      affine_row(x + off, y + off, S, scale, b[ch] - am * scale);
    }
  }
}

void group_norm_kernel(OpCall& c) {
  const Tensor x = c.in(0).contiguous();
  const GroupNormArgs a = GroupNormArgs::from(c);
  const int64_t G = a.num_groups;
  const int64_t N = x.size(0), C = x.size(1);
  const int64_t S = N * C == 0 ? 1 : x.numel() / (N * C);
  const int64_t group_len = C / G * S;
  const TensorOptions stat_opts(stat_dtype(x.dtype()));
  Tensor y = empty(x.sizes(), TensorOptions(x.dtype()));
  Tensor mean = empty(IntList{N, G}, stat_opts), rstd = empty(IntList{N, G}, stat_opts);
  EMBER_DISPATCH_FLOATING(x.dtype(), "group_norm", [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    scalar_t* yp = static_cast<scalar_t*>(y.data_ptr());
    acc_t* mp = static_cast<acc_t*>(mean.data_ptr());
    acc_t* rp = static_cast<acc_t*>(rstd.data_ptr());
    const std::vector<acc_t> w = param_values<acc_t>(c.in(1), C, 1);
    const std::vector<acc_t> b = param_values<acc_t>(c.in(2), C, 0);
    parallel_for(0, N * G, rows_grain(group_len), [&](int64_t g0, int64_t g1) {
      group_norm_groups(xp, yp, mp, rp, g0, g1, G, C / G, S, a.eps, w.data(), b.data());
    });
  });
  c.outputs.push_back(y);
  c.outputs.push_back(mean);
  c.outputs.push_back(rstd);
}

EMBER_REGISTER_KERNEL(layer_norm, CPU, layer_norm_kernel);
EMBER_REGISTER_KERNEL(batch_norm, CPU, batch_norm_kernel);
EMBER_REGISTER_KERNEL(group_norm, CPU, group_norm_kernel);

}  // namespace
}  // namespace ember::cpu
