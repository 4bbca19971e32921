// CPU kernels of softmax and log_softmax along one dim, numerically stable
// (the max is subtracted before exp), float16/bfloat16 computed in float.
//
// The input (made contiguous) is seen as [outer, D, inner]:
//   inner == 1   each row: max, exp (written once), sum, scale; rows in parallel.
//                A few very long rows are split across threads instead: each
//                thread finds (max, sum of exp) of its slice, the slices merge
//                (LogSumExpOps), then each thread writes its slice.
//   inner > 1    tiles of columns: the same three passes, vectorized across the
//                columns of a tile.
#include <type_traits>

#include "cpu/reduce_loops.h"
#include "cpu/reduce_ops.h"
#include "kernels/reduce_meta.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"

namespace ember::cpu {
namespace {

template <typename T, bool Log>
EMBER_VECTOR_CLONES void softmax_row(const T* x, T* out, int64_t D) {
  using A = opmath_t<T>;
  // Over the whole row (x[0] again as the start): a row of exactly the lanes' width then
  // takes the vector path, not the scalar tail.
  A m = minmax_lanes_impl<true>(x, D, load<A>(x[0]), CastTo<A>());
  auto exp_map = [m](T v) EMBER_ALWAYS_INLINE { return exp_acc(load<A>(v) - m); };
  if constexpr (!Log && std::is_same_v<T, A>) {
    for (int64_t i = 0; i < D; ++i) out[i] = exp_acc(x[i] - m);
    A inv = A(1) / pairwise_sum<A>(out, D, CastTo<A>());
    for (int64_t i = 0; i < D; ++i) out[i] *= inv;
  } else if constexpr (!Log) {
    A inv = A(1) / pairwise_sum<A>(x, D, exp_map);
    for (int64_t i = 0; i < D; ++i) out[i] = store<T>(exp_acc(load<A>(x[i]) - m) * inv);
  } else {
    // (x - m) - log(sum), as torch: x - (m + log(sum)) would round m + log(sum)
    // first and lose the small values' digits when m is large.
    A log_sum = std::log(pairwise_sum<A>(x, D, exp_map));
    for (int64_t i = 0; i < D; ++i) out[i] = store<T>((load<A>(x[i]) - m) - log_sum);
  }
}

// out = exp(x - m) * inv, or (x - m) - log_sum (Log).
template <typename T, bool Log>
EMBER_VECTOR_CLONES void softmax_finish(const T* x, T* out, int64_t n, opmath_t<T> m,
                                        opmath_t<T> inv, opmath_t<T> log_sum) {
  using A = opmath_t<T>;
  for (int64_t i = 0; i < n; ++i) {
    A v = load<A>(x[i]);
    out[i] = store<T>(Log ? (v - m) - log_sum : exp_acc(v - m) * inv);
  }
}

// One long row split across nt threads (two passes over memory).
template <typename T, bool Log>
void softmax_split_row(const T* x, T* out, int64_t D, int nt) {
  using A = opmath_t<T>;
  using Ops = LogSumExpOps<T>;
  Ops ops;
  std::vector<typename Ops::acc_t> part(nt);
  reduce_impl::run_chunks(nt, [&](int t) {
    int64_t b = D * t / nt, e = D * (t + 1) / nt;
    part[t] = ops.run(ops.identity(), x + b, e - b, b);
  });
  typename Ops::acc_t total = part[0];
  for (int t = 1; t < nt; ++t) total = ops.combine(total, part[t]);
  // A non-finite max makes every value nan, as in the one-row path.
  if (!std::isfinite(static_cast<double>(total.m))) {
    std::fill(out, out + D, store<T>(std::numeric_limits<A>::quiet_NaN()));
    return;
  }
  const A m = total.m, inv = A(1) / total.s, log_sum = std::log(total.s);
  reduce_impl::run_chunks(nt, [&](int t) {
    int64_t b = D * t / nt, e = D * (t + 1) / nt;
    softmax_finish<T, Log>(x + b, out + b, e - b, m, inv, log_sum);
  });
}

// Per-column scratch of the columns path.
template <typename A>
struct ColumnBuffers {
  static constexpr int64_t kWidth = 512;
  A max[kWidth], part[kWidth];  // part: a block's sum of exp, then the final factor
  double total[kWidth];         // the sums of exp over blocks of rows, kept accurate
};

// Columns [0, w) of one [D, inner] slab: max, sum of exp (float sums over
// blocks of 256 rows, added up in double), then the output.
template <typename T, bool Log>
EMBER_VECTOR_CLONES void softmax_columns(const T* x, T* out, int64_t D, int64_t inner, int64_t w,
                                         ColumnBuffers<opmath_t<T>>& buf) {
  using A = opmath_t<T>;
  A* m = buf.max;
  A* s = buf.part;
  double* total = buf.total;
  for (int64_t j = 0; j < w; ++j) m[j] = load<A>(x[j]);
  for (int64_t d = 1; d < D; ++d) {
    const T* row = x + d * inner;
    for (int64_t j = 0; j < w; ++j) m[j] = pick<true>(m[j], load<A>(row[j]));
  }
  for (int64_t j = 0; j < w; ++j) total[j] = 0;
  for (int64_t d0 = 0; d0 < D; d0 += 256) {
    for (int64_t j = 0; j < w; ++j) s[j] = 0;
    for (int64_t d = d0; d < std::min(D, d0 + 256); ++d) {
      const T* row = x + d * inner;
      T* orow = out + d * inner;
      if constexpr (!Log && std::is_same_v<T, A>) {
        for (int64_t j = 0; j < w; ++j) {
          A e = exp_acc(row[j] - m[j]);
          orow[j] = e;
          s[j] += e;
        }
      } else {
        for (int64_t j = 0; j < w; ++j) s[j] += exp_acc(load<A>(row[j]) - m[j]);
      }
    }
    for (int64_t j = 0; j < w; ++j) total[j] += s[j];
  }
  for (int64_t j = 0; j < w; ++j)  // s becomes log(sum) (Log) or 1 / sum
    s[j] = Log ? static_cast<A>(std::log(total[j])) : static_cast<A>(1.0 / total[j]);
  for (int64_t d = 0; d < D; ++d) {
    const T* row = x + d * inner;
    T* orow = out + d * inner;
    for (int64_t j = 0; j < w; ++j) {
      if constexpr (Log) orow[j] = store<T>((load<A>(row[j]) - m[j]) - s[j]);
      else if constexpr (std::is_same_v<T, A>) orow[j] *= s[j];
      else orow[j] = store<T>(exp_acc(load<A>(row[j]) - m[j]) * s[j]);
    }
  }
}

template <typename T, bool Log>
void softmax_impl(const T* x, T* out, int64_t outer, int64_t D, int64_t inner) {
  const int nt = reduce_impl::reduce_threads(outer * D * inner);
  if (inner == 1) {
    if (outer < nt && D >= 4 * kGrainSize) {
      for (int64_t o = 0; o < outer; ++o) softmax_split_row<T, Log>(x + o * D, out + o * D, D, nt);
      return;
    }
    reduce_impl::run_chunks(std::min<int64_t>(nt, outer), [&](int t) {
      int64_t n = std::min<int64_t>(nt, outer);
      for (int64_t o = outer * t / n; o < outer * (t + 1) / n; ++o)
        softmax_row<T, Log>(x + o * D, out + o * D, D);
    });
    return;
  }
  using Buffers = ColumnBuffers<opmath_t<T>>;
  constexpr int64_t kTile = Buffers::kWidth;
  const int64_t per_slab = (inner + kTile - 1) / kTile, tiles = outer * per_slab;
  const int n = static_cast<int>(std::min<int64_t>(nt, tiles));
  reduce_impl::run_chunks(n, [&](int t) {
    auto buf = std::make_unique<Buffers>();
    for (int64_t tile = tiles * t / n; tile < tiles * (t + 1) / n; ++tile) {
      int64_t o = tile / per_slab, j0 = (tile % per_slab) * kTile;
      int64_t off = o * D * inner + j0;
      softmax_columns<T, Log>(x + off, out + off, D, inner, std::min(kTile, inner - j0), *buf);
    }
  });
}

template <bool Log>
void softmax_kernel(OpCall& c) {
  const ReduceMeta m = reduce_meta(c);  // x: contiguous, in the result's dtype
  const Tensor &self = c.in(0), &x = m.x, &out = m.outputs[0];
  const int64_t dim = m.dims[0];
  int64_t outer = 1, D = 1, inner = 1;
  for (int64_t d = 0; d < self.dim(); ++d)
    (d < dim ? outer : d == dim ? D : inner) *= self.sizes()[d];
  if (out.numel() > 0) {
    EMBER_DISPATCH_FLOATING(out.dtype(), Log ? "log_softmax" : "softmax", [&] {
      softmax_impl<scalar_t, Log>(static_cast<const scalar_t*>(x.data_ptr()),
                                  static_cast<scalar_t*>(out.data_ptr()), outer, D, inner);
    });
  }
  m.finish(c);
}

EMBER_REGISTER_KERNEL(softmax, CPU, softmax_kernel<false>);
EMBER_REGISTER_KERNEL(log_softmax, CPU, softmax_kernel<true>);

}  // namespace
}  // namespace ember::cpu
