// Elementwise loops. cpu_kernel(out, {&a, &b}, f) writes out[i] = f(a[i], b[i])
// over out's shape, with inputs broadcast to it, any strides, no copies.
//
// The element types come from f's signature: its argument types must be the
// inputs' dtypes and its return type out's dtype (the kernel casts beforehand).
// Dims are coalesced first, so contiguous and simply-strided tensors run one
// flat loop; the inner loop has a branch-free path for contiguous operands (and
// for a broadcast scalar operand) that the compiler vectorizes.
//
// Never throw from f: it may run inside an OpenMP region (see parallel.h).
#pragma once
#include <array>
#include <tuple>
#include <utility>

#include "cpu/parallel.h"
#include "ember/tensor.h"

namespace ember::cpu {

template <typename T> struct function_traits : function_traits<decltype(&T::operator())> {};
template <typename C, typename R, typename... A>
struct function_traits<R (C::*)(A...) const> {
  using result = R;
  using args = std::tuple<A...>;
  static constexpr size_t arity = sizeof...(A);
};
template <typename R, typename... A>
struct function_traits<R (*)(A...)> {
  using result = R;
  using args = std::tuple<A...>;
  static constexpr size_t arity = sizeof...(A);
};

// Operand 0 is the output; strides are in bytes and broadcast to the output's shape.
template <size_t NOps>
struct LoopGeometry {
  DimVector sizes;
  std::array<DimVector, NOps> strides;
  std::array<char*, NOps> base;
  int64_t numel = 1;
};

template <size_t NOps>
LoopGeometry<NOps> make_geometry(const Tensor& out, const std::array<const Tensor*, NOps - 1>& ins) {
  LoopGeometry<NOps> g;
  const DimVector& shape = out.sizes();
  int64_t nd = static_cast<int64_t>(shape.size());
  g.numel = out.numel();
  std::array<DimVector, NOps> full;
  for (size_t k = 0; k < NOps; ++k) {
    const Tensor& t = k == 0 ? out : *ins[k - 1];
    g.base[k] = static_cast<char*>(t.data_ptr());
    int64_t isz = t.element_size(), lead = nd - t.dim();
    full[k] = DimVector(nd, 0);
    for (int64_t d = lead; d < nd; ++d)
      full[k][d] = t.sizes()[d - lead] == 1 ? 0 : t.strides()[d - lead] * isz;
  }
  // Drop size-1 dims; merge a dim into the next inner one when every operand
  // steps over it exactly as a continuation of the inner one.
  for (int64_t d = 0; d < nd; ++d) {
    if (shape[d] == 1) continue;
    bool merge = !g.sizes.empty();
    for (size_t k = 0; k < NOps && merge; ++k)
      merge = g.strides[k].back() == full[k][d] * shape[d];
    if (merge) {
      g.sizes.back() *= shape[d];
      for (size_t k = 0; k < NOps; ++k) g.strides[k].back() = full[k][d];
    } else {
      g.sizes.push_back(shape[d]);
      for (size_t k = 0; k < NOps; ++k) g.strides[k].push_back(full[k][d]);
    }
  }
  if (g.sizes.empty()) {  // a single element
    g.sizes.push_back(1);
    for (size_t k = 0; k < NOps; ++k) g.strides[k].push_back(0);
  }
  return g;
}

// Runs inner(ptrs, inner_strides, n) over every row of the geometry, splitting
// the flat element range across threads.
template <size_t NOps, typename Inner>
void for_each_row(const LoopGeometry<NOps>& g, int64_t grain, const Inner& inner) {
  const int64_t nd = static_cast<int64_t>(g.sizes.size());
  std::array<int64_t, NOps> inner_strides;
  for (size_t k = 0; k < NOps; ++k) inner_strides[k] = g.strides[k][nd - 1];
  parallel_for(0, g.numel, grain, [&](int64_t begin, int64_t end) {
    DimVector idx(nd, 0);
    std::array<char*, NOps> ptrs = g.base;
    int64_t rem = begin;
    for (int64_t d = nd - 1; d >= 0; --d) {
      idx[d] = rem % g.sizes[d];
      rem /= g.sizes[d];
      for (size_t k = 0; k < NOps; ++k) ptrs[k] += idx[d] * g.strides[k][d];
    }
    for (int64_t i = begin; i < end;) {
      int64_t n = std::min(g.sizes[nd - 1] - idx[nd - 1], end - i);
      inner(ptrs.data(), inner_strides.data(), n);
      i += n;
      idx[nd - 1] += n;
      for (size_t k = 0; k < NOps; ++k) ptrs[k] += n * inner_strides[k];
      for (int64_t d = nd - 1; d > 0 && idx[d] == g.sizes[d]; --d) {
        idx[d] = 0;
        ++idx[d - 1];
        for (size_t k = 0; k < NOps; ++k)
          ptrs[k] += g.strides[k][d - 1] - g.sizes[d] * g.strides[k][d];
      }
    }
  });
}

namespace loop_impl {

template <typename T> inline T load(const char* p) { return *reinterpret_cast<const T*>(p); }

// Inner loop for a given pattern: bit k of ScalarMask set means input k has
// stride 0 (a broadcast scalar) and is read once. Compile-time, so each
// pattern's loop is branch-free and vectorizable.
template <unsigned ScalarMask, typename F, size_t... I>
inline void dense_loop(char** ptrs, int64_t n, const F& f, std::index_sequence<I...>) {
  using traits = function_traits<F>;
  using out_t = typename traits::result;
  using args = typename traits::args;
  out_t* out = reinterpret_cast<out_t*>(ptrs[0]);
  std::tuple<const std::tuple_element_t<I, args>*...> in{
      reinterpret_cast<const std::tuple_element_t<I, args>*>(ptrs[I + 1])...};
  std::tuple<std::tuple_element_t<I, args>...> scalar{
      ((ScalarMask >> I) & 1u ? *std::get<I>(in) : std::tuple_element_t<I, args>())...};
  for (int64_t i = 0; i < n; ++i)
    out[i] = f(((ScalarMask >> I) & 1u ? std::get<I>(scalar) : std::get<I>(in)[i])...);
}

template <typename F, size_t... I>
inline void strided_loop(char** ptrs, const int64_t* s, int64_t n, const F& f,
                         std::index_sequence<I...>) {
  using traits = function_traits<F>;
  using out_t = typename traits::result;
  using args = typename traits::args;
  for (int64_t i = 0; i < n; ++i)
    *reinterpret_cast<out_t*>(ptrs[0] + i * s[0]) =
        f(load<std::tuple_element_t<I, args>>(ptrs[I + 1] + i * s[I + 1])...);
}

template <typename F, size_t... I>
inline void inner_loop(char** ptrs, const int64_t* s, int64_t n, const F& f,
                       std::index_sequence<I...> seq) {
  using traits = function_traits<F>;
  using out_t = typename traits::result;
  using args = typename traits::args;
  constexpr size_t N = sizeof...(I);
  bool out_dense = s[0] == static_cast<int64_t>(sizeof(out_t));
  bool dense[N + 1] = {(s[I + 1] == static_cast<int64_t>(sizeof(std::tuple_element_t<I, args>)))...,
                       true};
  bool zero[N + 1] = {(s[I + 1] == 0)..., false};
  if (out_dense) {
    bool all_dense = true;
    for (size_t k = 0; k < N; ++k) all_dense = all_dense && dense[k];
    if (all_dense) return dense_loop<0u>(ptrs, n, f, seq);
    if constexpr (N == 2) {
      if (zero[0] && dense[1]) return dense_loop<1u>(ptrs, n, f, seq);
      if (dense[0] && zero[1]) return dense_loop<2u>(ptrs, n, f, seq);
    }
    if constexpr (N == 3) {
      if (dense[0] && zero[1] && zero[2]) return dense_loop<6u>(ptrs, n, f, seq);
    }
  }
  strided_loop(ptrs, s, n, f, seq);
}

}  // namespace loop_impl

// out[i] = f(ins[0][i], ins[1][i], ...); see the comment at the top.
template <typename F>
void cpu_kernel(const Tensor& out, const std::array<const Tensor*, function_traits<F>::arity>& ins,
                const F& f, int64_t grain = kGrainSize) {
  constexpr size_t N = function_traits<F>::arity;
  if (out.numel() == 0) return;
  auto g = make_geometry<N + 1>(out, ins);
  for_each_row<N + 1>(g, grain, [&](char** ptrs, const int64_t* strides, int64_t n) {
    loop_impl::inner_loop(ptrs, strides, n, f, std::make_index_sequence<N>{});
  });
}

}  // namespace ember::cpu
