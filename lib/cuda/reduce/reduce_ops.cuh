// The reductions of the CUDA reduce group as Ops for run_reduce (reduce_kernel.cuh):
// sums of a mapped value (sum, mean, norms, count_nonzero, the losses' sums),
// products, max/min, min and max together, arg max/min, Welford moments,
// logsumexp and any/all. The same accumulators and rules as cpu/reduce_ops.h.
#pragma once
#include <cmath>

#include "kernels/int_math.h"
#include "cuda/reduce/reduce_kernel.cuh"

namespace ember::cuda::reduce {

// What a sum adds up per value.
enum class SumMap { Value, Abs, Square, AbsPow, Nonzero };
// What it does with the total before the store.
enum class SumPost { None, Sqrt, Pow };

// out[c] = post(scale * sum_r map(x[r])) in Out. Integer accumulators wrap (as the CPU).
template <typename T, typename A, typename Out, SumMap M = SumMap::Value, SumPost P = SumPost::None>
struct SumOps {
  using in_t = T;
  using acc_t = A;
  Out* out;
  A scale;  // mean: 1 / n (NaN when n == 0); 1 otherwise
  A p;      // AbsPow's exponent, Pow's is 1 / p (inv_p)
  A inv_p;
  __device__ A identity() const { return A(0); }
  __device__ A lift(T v, int64_t) const {
    if constexpr (M == SumMap::Nonzero) {
      return static_cast<A>(static_cast<opmath_t<T>>(v) != opmath_t<T>(0));
    } else {
      A x = convert<A>(v);
      if constexpr (M == SumMap::Abs) return x < A(0) ? -x : x;
      else if constexpr (M == SumMap::Square) return x * x;
      else if constexpr (M == SumMap::AbsPow) return pow(x < A(0) ? -x : x, p);
      else return x;
    }
  }
  __device__ A combine(A a, A b) const {
    if constexpr (std::is_integral_v<A>) return wrap_add(a, b);
    else return a + b;
  }
  __device__ void write(int64_t c, A a) const {
    if constexpr (std::is_floating_point_v<A>) {
      a = a * scale;
      if constexpr (P == SumPost::Sqrt) a = sqrt(a);
      else if constexpr (P == SumPost::Pow) a = pow(a, inv_p);
    }
    out[c] = convert<Out>(a);
  }
};

template <typename T, typename A, typename Out = T>
struct ProdOps {
  using in_t = T;
  using acc_t = A;
  Out* out;
  __device__ A identity() const { return A(1); }
  __device__ A lift(T v, int64_t) const { return convert<A>(v); }
  __device__ A combine(A a, A b) const {
    if constexpr (std::is_integral_v<A>) return wrap_mul(a, b);
    else return a * b;
  }
  __device__ void write(int64_t c, A a) const { out[c] = convert<Out>(a); }
};

// max (Max) or min of (optionally absolute) values, NaN propagating.
template <typename T, bool Max, bool Abs = false>
struct MinMaxOps {
  using in_t = T;
  using acc_t = opmath_t<T>;
  T* out;
  __device__ acc_t identity() const { return minmax_identity<acc_t, Max>(); }
  __device__ acc_t lift(T v, int64_t) const {
    acc_t x = static_cast<acc_t>(v);
    if constexpr (Abs) return x < acc_t(0) ? -x : x;
    else return x;
  }
  __device__ acc_t combine(acc_t a, acc_t b) const { return beats<Max>(b, a) ? b : a; }
  __device__ void write(int64_t c, acc_t a) const { out[c] = convert<T>(a); }
};

template <typename A>
struct MinMaxAcc {
  A lo, hi;
};

template <typename T>
struct AminmaxOps {
  using in_t = T;
  using A = opmath_t<T>;
  using acc_t = MinMaxAcc<A>;
  T* lo;
  T* hi;
  __device__ acc_t identity() const { return {minmax_identity<A, false>(), minmax_identity<A, true>()}; }
  __device__ acc_t lift(T v, int64_t) const { return {static_cast<A>(v), static_cast<A>(v)}; }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    return {beats<false>(b.lo, a.lo) ? b.lo : a.lo, beats<true>(b.hi, a.hi) ? b.hi : a.hi};
  }
  __device__ void write(int64_t c, acc_t a) const {
    lo[c] = convert<T>(a.lo);
    hi[c] = convert<T>(a.hi);
  }
};

// The best value and its first position (index -1: none yet).
template <typename A>
struct ValueIndex {
  A value;
  int64_t index;
};

template <typename T, bool Max>
struct ArgOps {
  using in_t = T;
  using A = opmath_t<T>;
  using acc_t = ValueIndex<A>;
  T* values;         // null for argmax/argmin
  int64_t* indices;
  __device__ acc_t identity() const { return {A(), -1}; }
  __device__ acc_t lift(T v, int64_t r) const { return {static_cast<A>(v), r}; }
  // Partials may arrive in any order: a tie (equal values, or two NaNs) keeps the
  // smaller index, so the first occurrence wins whatever the order.
  __device__ acc_t combine(acc_t a, acc_t b) const {
    if (b.index < 0) return a;
    if (a.index < 0) return b;
    if (beats<Max>(b.value, a.value)) return b;
    if (beats<Max>(a.value, b.value)) return a;
    return b.index < a.index ? b : a;
  }
  __device__ void write(int64_t c, acc_t a) const {
    if (values) values[c] = convert<T>(a.value);
    indices[c] = a.index < 0 ? 0 : a.index;
  }
};

// Welford's count, mean and sum of squared deviations, in double (as the CPU);
// partials merge with Chan's formula.
struct WelfordAcc {
  double n, mean, m2;
};

template <typename T>
struct WelfordOps {
  using in_t = T;
  using acc_t = WelfordAcc;
  T* var;   // var or std
  T* mean;  // null unless var_mean / std_mean
  double correction;
  bool take_sqrt;
  __device__ acc_t identity() const { return {0, 0, 0}; }
  __device__ acc_t lift(T v, int64_t) const { return {1, convert<double>(v), 0}; }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    if (b.n == 0) return a;
    if (a.n == 0) return b;
    double n = a.n + b.n, delta = b.mean - a.mean, wb = b.n / n;
    return {n, a.mean + delta * wb, a.m2 + b.m2 + delta * delta * a.n * wb};
  }
  __device__ void write(int64_t c, acc_t a) const {
    // PyTorch divides by max(0, n - correction): inf or nan when that is 0.
    double d = a.n - correction;
    double v = a.m2 / (d > 0 ? d : 0.0);
    var[c] = convert<T>(take_sqrt ? sqrt(v) : v);
    if (mean) mean[c] = convert<T>(a.n == 0 ? nan("") : a.mean);
  }
};

// logsumexp as (max m, sum of exp(x - m)); partials merge by rescaling.
template <typename A>
struct LseAcc {
  A m, s;
};

template <typename T>
struct LogSumExpOps {
  using in_t = T;
  using A = opmath_t<T>;
  using acc_t = LseAcc<A>;
  T* out;
  __device__ acc_t identity() const { return {A(-INFINITY), A(0)}; }
  __device__ acc_t lift(T v, int64_t) const { return {static_cast<A>(v), A(1)}; }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    if (a.m != a.m || b.m != b.m) return {A(NAN), A(1)};
    if (a.m < b.m) {
      acc_t t = a;
      a = b;
      b = t;
    }
    if (b.m == A(-INFINITY)) return a;  // b is empty or all -inf
    if (a.m == A(INFINITY)) return {A(INFINITY), A(1)};
    return {a.m, a.s + b.s * exp_acc(b.m - a.m)};
  }
  __device__ void write(int64_t c, acc_t a) const {
    A r = (a.m == A(INFINITY) || a.m == A(-INFINITY)) ? a.m : a.m + log(a.s);
    out[c] = convert<T>(r);
  }
};

// any (Any) or all: whether some / every value is nonzero; Out is bool or uint8.
template <typename T, bool Any, typename Out>
struct AnyAllOps {
  using in_t = T;
  using acc_t = bool;
  Out* out;
  __device__ bool identity() const { return !Any; }
  __device__ bool lift(T v, int64_t) const { return static_cast<opmath_t<T>>(v) != opmath_t<T>(0); }
  __device__ bool combine(bool a, bool b) const { return Any ? (a || b) : (a && b); }
  __device__ void write(int64_t c, bool a) const { out[c] = static_cast<Out>(a); }
};

}  // namespace ember::cuda::reduce
