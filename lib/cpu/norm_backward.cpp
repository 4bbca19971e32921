// Backward of the normalizations (batch_norm, layer_norm, group_norm). Each
// reads the input and grad_out as contiguous [outer, channels, inner],
// takes the two sums a normalization's gradient needs (sum of g and of
// g (x - mean), g = dy * weight) in opmath with blocks added in double, then
// writes dx = (g - a - (x - mean) b) rstd in a second pass (the centred form:
// no cancellation when the mean is large). Weight and bias gradients are
// summed per part of the rows into the part's own buffer, parts added in order.
#include <cmath>

#include "cpu/nn_backward_common.h"
#include "dispatch/dispatcher.h"

namespace ember::cpu {
namespace {

DType param_grad_dtype(const Tensor& param, const Tensor& input) {
  return param.defined() ? param.dtype() : input.dtype();
}

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
  const DimVector& ns = c.attr(0).to_ints();
  const GradFlags want = grad_flags(c.attr(1));
  int64_t n = 1;
  for (int64_t s : ns) n *= s;
  const int64_t rows = n == 0 ? 0 : x.numel() / n;
  Tensor dx = want.input ? empty(x.sizes(), TensorOptions(x.dtype())) : Tensor();
  Tensor dw, db;
  EMBER_DISPATCH_FLOATING(x.dtype(), "layer_norm_backward", [&] {
    using acc_t = opmath_t<scalar_t>;
    const std::vector<acc_t> w = param_values<acc_t>(weight, n, 1);
    const std::vector<acc_t> mean = param_values<acc_t>(c.in(2), rows, 0);
    const std::vector<acc_t> rstd = param_values<acc_t>(c.in(3), rows, 1);
    const int64_t parts = (want.weight || want.bias) ? num_parts(rows, rows_grain(n)) : 1;
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
    if (want.weight) dw = tensor_of(total(dw_parts), ns, param_grad_dtype(weight, x));
    if (want.bias) db = tensor_of(total(db_parts), ns, param_grad_dtype(bias, weight.defined() ? weight : x));
  });
  c.outputs.push_back(dx);
  c.outputs.push_back(dw);
  c.outputs.push_back(db);
}

// ---- batch_norm --------------------------------------------------------------------

// Per-channel sums of x viewed as [N, C, S]: sum_dy[c] and dot[c] = sum of
// dy (x - mean[c]). Parts of the N * C rows (S > 1) or of the N rows of C
// values (S == 1, vectorized across channels) fill their own buffers.
template <typename T>
EMBER_CLONES void channel_grad_sums_part(const T* dy, const T* x, int64_t r0, int64_t r1, int64_t C,
                                         int64_t S, const double* mean, double* s, double* dot) {
  if (S == 1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* dyr = dy + r * C;
      const T* xr = x + r * C;
#pragma omp simd
      for (int64_t k = 0; k < C; ++k) {
        const double g = static_cast<double>(static_cast<opmath_t<T>>(dyr[k]));
        s[k] += g;
        dot[k] += g * (static_cast<double>(static_cast<opmath_t<T>>(xr[k])) - mean[k]);
      }
    }
    return;
  }
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t k = r % C;
    grad_moments(dy + r * S, x + r * S, S, mean[k], s[k], dot[k]);
  }
}

template <typename T>
void channel_grad_sums(const T* dy, const T* x, int64_t N, int64_t C, int64_t S,
                       const std::vector<double>& mean, std::vector<double>& s, std::vector<double>& dot) {
  const int64_t rows = S == 1 ? N : N * C, row_len = S == 1 ? C : S;
  const int64_t parts = num_parts(rows, rows_grain(row_len));
  std::vector<double> s_parts(parts * C, 0.0), dot_parts(parts * C, 0.0);
  parallel_parts(rows, parts, [&](int64_t p, int64_t r0, int64_t r1) {
    channel_grad_sums_part(dy, x, r0, r1, C, S, mean.data(), s_parts.data() + p * C, dot_parts.data() + p * C);
  });
  for (int64_t p = 0; p < parts; ++p)
    for (int64_t k = 0; k < C; ++k) {
      s[k] += s_parts[p * C + k];
      dot[k] += dot_parts[p * C + k];
    }
}

// dx over rows [r0, r1) of x viewed as [N * C, S] (S > 1) or [N, C] (S == 1),
// with per-channel w, a, b, mean, rstd (see normalized_grad).
template <typename T, typename Acc>
EMBER_CLONES void batch_norm_dx_rows(const T* dy, const T* x, T* dx, int64_t r0, int64_t r1, int64_t C,
                                     int64_t S, const Acc* w, const Acc* a, const Acc* b,
                                     const Acc* mean, const Acc* rstd) {
  if (S == 1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* dyr = dy + r * C;
      const T* xr = x + r * C;
      T* dxr = dx + r * C;
#pragma omp simd
      for (int64_t k = 0; k < C; ++k)
        dxr[k] = convert<T>((static_cast<Acc>(dyr[k]) * w[k] - a[k] - (static_cast<Acc>(xr[k]) - mean[k]) * b[k]) * rstd[k]);
    }
    return;
  }
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t k = r % C;
    normalized_grad(dy + r * S, x + r * S, dx + r * S, S, w[k], a[k], b[k], mean[k], rstd[k]);
  }
}

void batch_norm_backward_kernel(OpCall& c) {
  const Tensor dy = c.in(0).contiguous(), x = c.in(1).contiguous();
  const Tensor& weight = c.in(2);
  const bool train = c.attr(0).to_bool();
  const double eps = c.attr(1).to_double();
  const GradFlags want = grad_flags(c.attr(2));
  const int64_t N = x.size(0), C = x.size(1);
  const int64_t S = N * C == 0 ? 1 : x.numel() / (N * C);
  const int64_t count = N * S;
  std::vector<double> mean, rstd;
  if (train) {
    mean = param_values<double>(c.in(5), C, 0);
    rstd = param_values<double>(c.in(6), C, 1);
  } else {
    mean = param_values<double>(c.in(3), C, 0);
    rstd = param_values<double>(c.in(4), C, 1);
    for (double& v : rstd) v = 1.0 / std::sqrt(v + eps);
  }
  const std::vector<double> w = param_values<double>(weight, C, 1);
  std::vector<double> s(C, 0.0), dot(C, 0.0);
  Tensor dx = want.input ? empty(x.sizes(), TensorOptions(x.dtype())) : Tensor();
  EMBER_DISPATCH_FLOATING(x.dtype(), "batch_norm_backward", [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* dyp = static_cast<const scalar_t*>(dy.data_ptr());
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    if (count > 0 && (want.weight || want.bias || (want.input && train)))
      channel_grad_sums(dyp, xp, N, C, S, mean, s, dot);
    if (!want.input || x.numel() == 0) return;
    // train: a = w sum(dy) / M, b = w sum(dy (x - mean)) rstd^2 / M; eval: the
    // statistics are constants, dx = dy w rstd.
    std::vector<acc_t> wa(C), a(C), b(C), m(C), r(C);
    for (int64_t k = 0; k < C; ++k) {
      wa[k] = static_cast<acc_t>(w[k]);
      a[k] = train ? static_cast<acc_t>(w[k] * s[k] / double(count)) : acc_t(0);
      b[k] = train ? static_cast<acc_t>(w[k] * dot[k] * rstd[k] * rstd[k] / double(count)) : acc_t(0);
      m[k] = static_cast<acc_t>(mean[k]);
      r[k] = static_cast<acc_t>(rstd[k]);
    }
    scalar_t* dxp = static_cast<scalar_t*>(dx.data_ptr());
    const int64_t rows = S == 1 ? N : N * C;
    parallel_for(0, rows, rows_grain(S == 1 ? C : S), [&](int64_t r0, int64_t r1) {
      batch_norm_dx_rows(dyp, xp, dxp, r0, r1, C, S, wa.data(), a.data(), b.data(), m.data(), r.data());
    });
  });
  Tensor dw, db;
  const DType pdt = param_grad_dtype(weight, x);
  if (want.weight) {
    std::vector<double> g(C);
    for (int64_t k = 0; k < C; ++k) g[k] = count > 0 ? dot[k] * rstd[k] : 0.0;  // no NaN stats
    dw = tensor_of(g, {C}, pdt);
  }
  if (want.bias) db = tensor_of(s, {C}, pdt);
  c.outputs.push_back(dx);
  c.outputs.push_back(dw);
  c.outputs.push_back(db);
}

// ---- group_norm --------------------------------------------------------------------

// Rows [r0, r1) of x viewed as [N * C, S]: s[r] = sum of dy, dot[r] = sum of
// dy (x - mean of the row's group).
template <typename T>
EMBER_CLONES void group_row_sums(const T* dy, const T* x, int64_t r0, int64_t r1, int64_t S, int64_t D,
                                 const double* mean, double* s, double* dot) {
  for (int64_t r = r0; r < r1; ++r) {
    s[r] = dot[r] = 0;
    grad_moments(dy + r * S, x + r * S, S, mean[r / D], s[r], dot[r]);
  }
}

template <typename T, typename Acc>
EMBER_CLONES void group_dx_rows(const T* dy, const T* x, T* dx, int64_t r0, int64_t r1, int64_t C,
                                int64_t S, int64_t D, const Acc* w, const Acc* a, const Acc* b,
                                const Acc* mean, const Acc* rstd) {
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t g = r / D;
    normalized_grad(dy + r * S, x + r * S, dx + r * S, S, w[r % C], a[g], b[g], mean[g], rstd[g]);
  }
}

void group_norm_backward_kernel(OpCall& c) {
  const Tensor dy = c.in(0).contiguous(), x = c.in(1).contiguous();
  const Tensor& weight = c.in(4);
  const int64_t G = c.attr(0).to_int();
  const GradFlags want = grad_flags(c.attr(1));
  const int64_t N = x.size(0), C = x.size(1);
  const int64_t S = N * C == 0 ? 1 : x.numel() / (N * C);
  const int64_t D = C / G, rows = N * C;
  const std::vector<double> mean = param_values<double>(c.in(2), N * G, 0);
  const std::vector<double> rstd = param_values<double>(c.in(3), N * G, 1);
  const std::vector<double> w = param_values<double>(weight, C, 1);
  std::vector<double> s(rows, 0.0), dot(rows, 0.0);
  Tensor dx = want.input ? empty(x.sizes(), TensorOptions(x.dtype())) : Tensor();
  EMBER_DISPATCH_FLOATING(x.dtype(), "group_norm_backward", [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* dyp = static_cast<const scalar_t*>(dy.data_ptr());
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    parallel_for(0, rows, rows_grain(S), [&](int64_t r0, int64_t r1) {
      group_row_sums(dyp, xp, r0, r1, S, D, mean.data(), s.data(), dot.data());
    });
    if (!want.input || x.numel() == 0) return;
    // Per group: a = sum(dy w) / M, b = sum(dy w (x - mean)) rstd^2 / M, M = D S.
    const double M = static_cast<double>(D * S);
    std::vector<acc_t> a(N * G), b(N * G), m(N * G), r(N * G), wa(C);
    for (int64_t k = 0; k < C; ++k) wa[k] = static_cast<acc_t>(w[k]);
    for (int64_t g = 0; g < N * G; ++g) {
      double sg = 0, dg = 0;
      for (int64_t d = 0; d < D; ++d) {
        const int64_t row = g * D + d;
        sg += w[row % C] * s[row];
        dg += w[row % C] * dot[row];
      }
      a[g] = static_cast<acc_t>(sg / M);
      b[g] = static_cast<acc_t>(dg * rstd[g] * rstd[g] / M);
      m[g] = static_cast<acc_t>(mean[g]);
      r[g] = static_cast<acc_t>(rstd[g]);
    }
    scalar_t* dxp = static_cast<scalar_t*>(dx.data_ptr());
    parallel_for(0, rows, rows_grain(S), [&](int64_t r0, int64_t r1) {
      group_dx_rows(dyp, xp, dxp, r0, r1, C, S, D, wa.data(), a.data(), b.data(), m.data(), r.data());
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
