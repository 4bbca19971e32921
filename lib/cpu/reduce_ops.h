// The reductions of the reduce group as Ops for reduce_strided (see the contract
// in reduce_loops.h): sums of a mapped value, products, max/min, arg max/min,
// Welford mean/variance, logsumexp and any/all.
#pragma once
#include <cmath>
#include <limits>

#include "cpu/reduce_math.h"

namespace ember::cpu {

// Maps for SumOps (sum, norms, count_nonzero); each returns the accumulator
// type. always_inline: they run inside the vectorized clones (reduce_math.h).
template <typename Acc>
struct AbsMap {
  template <typename T>
  EMBER_ALWAYS_INLINE Acc operator()(T v) const { return std::abs(load<Acc>(v)); }
};
template <typename Acc>
struct SquareMap {
  template <typename T>
  EMBER_ALWAYS_INLINE Acc operator()(T v) const { Acc x = load<Acc>(v); return x * x; }
};
template <typename Acc>
struct NonzeroMap {
  template <typename T>
  EMBER_ALWAYS_INLINE Acc operator()(T v) const { return static_cast<Acc>(load<opmath_t<T>>(v) != 0); }
};
template <typename Acc>
struct AbsPowMap {
  Acc p;
  template <typename T>
  EMBER_ALWAYS_INLINE Acc operator()(T v) const { return std::pow(std::abs(load<Acc>(v)), p); }
};

// pairwise_sum<float> of float16 values, each block of kPairwiseBlock widened with
// F16C first (half_convert.h; the element-wise conversion does not vectorize): the
// same blocks, lanes and order, so the same result (reduce_half.cpp).
float pairwise_sum_half(const Half* p, int64_t n);

// sum of map(v): pairwise for long contiguous runs.
template <typename T, typename Acc, typename Map = CastTo<Acc>>
struct SumOps {
  using in_t = T;
  using acc_t = Acc;
  Map map{};
  Acc identity() const { return Acc(0); }
  Acc step(Acc a, T v, int64_t) const { return a + map(v); }
  Acc combine(Acc a, Acc b) const { return a + b; }
  Acc run(Acc a, const T* p, int64_t n, int64_t) const {
    if constexpr (std::is_same_v<T, Half> && std::is_same_v<Acc, float> && std::is_same_v<Map, CastTo<float>>)
      return a + pairwise_sum_half(p, n);
    else
      return a + pairwise_sum_wide<Acc>(p, n, map);
  }
  EMBER_VECTOR_CLONES void rows(Acc* acc, const T* row, int64_t n, int64_t) const {
    for (int64_t j = 0; j < n; ++j) acc[j] += map(row[j]);
  }
};

template <typename T, typename Acc>
struct ProdOps {
  using in_t = T;
  using acc_t = Acc;
  Acc identity() const { return Acc(1); }
  Acc step(Acc a, T v, int64_t) const { return a * CastTo<Acc>()(v); }
  Acc combine(Acc a, Acc b) const { return a * b; }
  EMBER_VECTOR_CLONES Acc run(Acc a, const T* p, int64_t n, int64_t) const {
    return lanes_reduce(p, n, a, CastTo<Acc>(), [](Acc x, Acc y) EMBER_ALWAYS_INLINE { return x * y; });
  }
  void rows(Acc* acc, const T* row, int64_t n, int64_t) const {
    for (int64_t j = 0; j < n; ++j) acc[j] *= CastTo<Acc>()(row[j]);
  }
};

// max (Max) or min of map(v), NaN propagating; identity -inf / +inf (or the
// type's limits), which only empty partial ranges see.
template <typename T, bool Max, typename Map = CastTo<opmath_t<T>>>
struct MinMaxOps {
  using in_t = T;
  using acc_t = opmath_t<T>;
  Map map{};
  acc_t identity() const {
    if constexpr (std::is_same_v<acc_t, bool>) return !Max;
    else if constexpr (std::numeric_limits<acc_t>::has_infinity)
      return Max ? -std::numeric_limits<acc_t>::infinity() : std::numeric_limits<acc_t>::infinity();
    else return Max ? std::numeric_limits<acc_t>::lowest() : std::numeric_limits<acc_t>::max();
  }
  acc_t step(acc_t a, T v, int64_t) const { return pick<Max>(a, map(v)); }
  acc_t combine(acc_t a, acc_t b) const { return pick<Max>(a, b); }
  acc_t run(acc_t a, const T* p, int64_t n, int64_t) const { return minmax_lanes<Max>(p, n, a, map); }
  EMBER_VECTOR_CLONES void rows(acc_t* acc, const T* row, int64_t n, int64_t) const {
    for (int64_t j = 0; j < n; ++j) acc[j] = pick<Max>(acc[j], map(row[j]));
  }
};

// min and max together, in one pass over memory (blocks stay in cache).
template <typename T>
struct AminmaxOps {
  using in_t = T;
  using A = opmath_t<T>;
  struct acc_t {
    A lo, hi;
  };
  static constexpr int64_t kBlock = 2048;
  acc_t identity() const { return {MinMaxOps<T, false>().identity(), MinMaxOps<T, true>().identity()}; }
  acc_t step(acc_t a, T v, int64_t) const { return {pick<false>(a.lo, load<A>(v)), pick<true>(a.hi, load<A>(v))}; }
  acc_t combine(acc_t a, acc_t b) const { return {pick<false>(a.lo, b.lo), pick<true>(a.hi, b.hi)}; }
  acc_t run(acc_t a, const T* p, int64_t n, int64_t) const {
    for (int64_t b = 0; b < n; b += kBlock) {
      int64_t len = std::min(kBlock, n - b);
      a = {minmax_lanes<false>(p + b, len, a.lo, CastTo<A>()), minmax_lanes<true>(p + b, len, a.hi, CastTo<A>())};
    }
    return a;
  }
};

// The best value and the position of its first occurrence (index -1: none yet).
template <typename A>
struct ValueIndex {
  A value;
  int64_t index;
};

template <typename T, bool Max>
struct ArgMinMaxOps {
  using in_t = T;
  using A = opmath_t<T>;
  using acc_t = ValueIndex<A>;
  static constexpr bool kOrdered = true;  // positions are flat indices
  static constexpr int64_t kBlock = 1024;
  acc_t identity() const { return {A(), -1}; }
  acc_t step(acc_t a, T v, int64_t i) const {
    A x = load<A>(v);
    return a.index < 0 || beats<Max>(x, a.value) ? acc_t{x, i} : a;
  }
  acc_t combine(acc_t a, acc_t b) const {
    if (b.index < 0) return a;
    return a.index < 0 || beats<Max>(b.value, a.value) ? b : a;
  }
  // Per block: the best value with vectorized lanes, then its first position.
  acc_t run(acc_t a, const T* p, int64_t n, int64_t i0) const {
    for (int64_t b = 0; b < n; b += kBlock) {
      int64_t len = std::min(kBlock, n - b);
      const T* q = p + b;
      A best = minmax_lanes<Max>(q + 1, len - 1, load<A>(q[0]), CastTo<A>());
      if (a.index >= 0 && !beats<Max>(best, a.value)) continue;
      int64_t j = 0;
      if constexpr (std::is_floating_point_v<A>) {
        if (best != best)
          while (!(load<A>(q[j]) != load<A>(q[j]))) ++j;
        else
          while (load<A>(q[j]) != best) ++j;
      } else {
        while (load<A>(q[j]) != best) ++j;
      }
      a = acc_t{load<A>(q[j]), i0 + b + j};  // q[j]: the sign of a zero as stored
    }
    return a;
  }
};

// Welford's running mean and sum of squared deviations; partial results merge
// with Chan's formula. Contiguous runs go by blocks: two passes over a block in
// cache (mean, then squared deviations), which vectorize.
struct WelfordAcc {
  double n = 0, mean = 0, m2 = 0;
};

template <typename T>
struct WelfordOps {
  using in_t = T;
  using acc_t = WelfordAcc;
  using A = opmath_t<T>;
  static constexpr int64_t kBlock = 2048;
  acc_t identity() const { return {}; }
  acc_t step(acc_t a, T v, int64_t) const {
    double x = load<A>(v);
    a.n += 1;
    double delta = x - a.mean;
    a.mean += delta / a.n;
    a.m2 += delta * (x - a.mean);
    return a;
  }
  acc_t combine(acc_t a, acc_t b) const {
    if (b.n == 0) return a;
    if (a.n == 0) return b;
    double n = a.n + b.n, delta = b.mean - a.mean, wb = b.n / n;
    return {n, a.mean + delta * wb, a.m2 + b.m2 + delta * delta * a.n * wb};
  }
  EMBER_VECTOR_CLONES acc_t run(acc_t a, const T* p, int64_t n, int64_t) const {
    for (int64_t b = 0; b < n; b += kBlock) {
      int64_t len = std::min(kBlock, n - b);
      const T* q = p + b;
      A mean = pairwise_sum<A>(q, len, CastTo<A>()) / static_cast<A>(len);
      A m2 = lanes_reduce(
          q, len, A(0), [mean](T v) EMBER_ALWAYS_INLINE { A d = load<A>(v) - mean; return d * d; },
          [](A x, A y) EMBER_ALWAYS_INLINE { return x + y; });
      a = combine(a, acc_t{static_cast<double>(len), static_cast<double>(mean), static_cast<double>(m2)});
    }
    return a;
  }
  // Every accumulator of a tile has seen the same number of rows.
  void rows(acc_t* acc, const T* row, int64_t n, int64_t) const {
    if (n == 0) return;
    double count = acc[0].n + 1, inv = 1.0 / count;
    for (int64_t j = 0; j < n; ++j) {
      double x = load<A>(row[j]);
      double delta = x - acc[j].mean;
      acc[j].mean += delta * inv;
      acc[j].m2 += delta * (x - acc[j].mean);
      acc[j].n = count;
    }
  }
};

// logsumexp as (max m, sum of exp(x - m)); the sum stays finite. Partials merge
// by rescaling the one with the smaller max.
template <typename A>
struct LseAcc {
  A m, s;
};

template <typename T>
struct LogSumExpOps {
  using in_t = T;
  using A = opmath_t<T>;
  using acc_t = LseAcc<A>;
  static constexpr A kInf = std::numeric_limits<A>::infinity();
  static constexpr int64_t kBlock = 1024;
  acc_t identity() const { return {-kInf, 0}; }
  acc_t combine(acc_t a, acc_t b) const {
    if (a.m != a.m || b.m != b.m) return {std::numeric_limits<A>::quiet_NaN(), 1};
    if (a.m < b.m) std::swap(a, b);
    if (b.m == -kInf) return a;          // b is empty or all -inf
    if (a.m == kInf) return {kInf, 1};
    return {a.m, a.s + b.s * exp_acc(b.m - a.m)};
  }
  acc_t step(acc_t a, T v, int64_t) const { return combine(a, {load<A>(v), 1}); }
  acc_t run(acc_t a, const T* p, int64_t n, int64_t) const { return combine(a, pairwise(p, n)); }
  // Branch-free online update: both exps vectorize.
  EMBER_VECTOR_CLONES void rows(acc_t* acc, const T* row, int64_t n, int64_t) const {
    for (int64_t j = 0; j < n; ++j) {
      A v = load<A>(row[j]), m = acc[j].m;
      A mn = pick<true>(m, v);
      A s = select(m == mn, acc[j].s, acc[j].s * exp_acc(m - mn));
      acc[j].s = s + select(v == mn, A(1), exp_acc(v - mn));
      acc[j].m = mn;
    }
  }
  static A finish(acc_t a) { return a.m == kInf || a.m == -kInf ? a.m : a.m + std::log(a.s); }

 private:
  acc_t pairwise(const T* p, int64_t n) const {
    if (n > kBlock) {
      int64_t half = (n / 2 + kBlock - 1) / kBlock * kBlock;
      return combine(pairwise(p, half), pairwise(p + half, n - half));
    }
    acc_t a = block(p, n);
    if (a.m != a.m || a.m == kInf || a.m == -kInf) {  // rare: the careful scalar path
      a = identity();
      for (int64_t i = 0; i < n; ++i) a = step(a, p[i], i);
    }
    return a;
  }
  // (max, sum of exp(x - max)) of a block, assuming a finite max.
  EMBER_VECTOR_CLONES static acc_t block(const T* p, int64_t n) {
    A m = minmax_lanes_impl<true>(p + 1, n - 1, load<A>(p[0]), CastTo<A>());
    A s = lanes_reduce(p, n, A(0), [m](T v) EMBER_ALWAYS_INLINE { return exp_acc(load<A>(v) - m); },
                       [](A x, A y) EMBER_ALWAYS_INLINE { return x + y; });
    return {m, s};
  }
};

// any (Any) or all: whether some / every element is nonzero.
template <typename T, bool Any>
struct AnyAllOps {
  using in_t = T;
  using acc_t = bool;
  acc_t identity() const { return !Any; }
  acc_t step(acc_t a, T v, int64_t) const {
    bool nz = load<opmath_t<T>>(v) != 0;
    return Any ? (a || nz) : (a && nz);
  }
  acc_t combine(acc_t a, acc_t b) const { return Any ? (a || b) : (a && b); }
  acc_t run(acc_t a, const T* p, int64_t n, int64_t) const {
    for (int64_t b = 0; b < n && a == !Any; b += 4096) {  // stop at the first decisive block
      int64_t len = std::min<int64_t>(4096, n - b);
      int hits = lanes_reduce(p + b, len, 0, [](T v) { return Any ? (load<opmath_t<T>>(v) != 0 ? 1 : 0)
                                                                   : (load<opmath_t<T>>(v) == 0 ? 1 : 0); },
                              [](int x, int y) { return x | y; });
      if (hits) a = Any;
    }
    return a;
  }
};

}  // namespace ember::cpu
