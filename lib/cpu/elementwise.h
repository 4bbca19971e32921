// The loops of the elementwise kernels (unary.cpp, binary.cpp, compare.cpp, ...);
// where their results go and how operands reach the compute dtype is shared
// with the CUDA kernels: kernels/elementwise_setup.h (Note [Elementwise kernels]).
#pragma once
#include <type_traits>

#include "kernels/dtype_dispatch.h"
#include "cpu/loops.h"
#include "dispatch/dispatcher.h"
#include "ember/ops/views.h"
#include "kernels/elementwise_setup.h"

namespace ember::cpu {

// GCC compiles a function marked so once per ISA (AVX-512, AVX2+FMA, baseline
// x86-64) and picks one when the library loads, so the build stays portable
// (no -march=native) while hot loops use the widest vectors the CPU has.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(EMBER_NO_TARGET_CLONES)
#define EMBER_TARGET_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define EMBER_TARGET_CLONES
#endif

}  // namespace ember::cpu

// float16/bfloat16 operands: block-converted loops (they use EMBER_TARGET_CLONES).
#include "cpu/reduced_float_loops.h"

namespace ember::cpu {

// ---- loops ---------------------------------------------------------------------------------

namespace dense {
// The dense rows: plain loops the compiler vectorizes, once per ISA. An in-place
// row (out is the input) gets its own one-pointer loop: the compiler guards the
// two-pointer loop's vector path with a no-overlap check, which in-place fails.
template <typename T, typename F>
EMBER_TARGET_CLONES void map1_inplace(T* data, int64_t n, const F& f) {
  for (int64_t i = 0; i < n; ++i) data[i] = f(data[i]);
}
template <typename Out, typename In, typename F>
EMBER_TARGET_CLONES void map1(Out* out, const In* in, int64_t n, const F& f) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]);
}
template <typename T, typename B, typename F>
EMBER_TARGET_CLONES void map2_inplace(T* a, const B* b, int64_t n, const F& f) {
  for (int64_t i = 0; i < n; ++i) a[i] = f(a[i], b[i]);
}
template <typename Out, typename A, typename B, typename F>
EMBER_TARGET_CLONES void map2(Out* out, const A* a, const B* b, int64_t n, const F& f) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
}

// A dense binary row: in place when out is one of the inputs.
template <typename Out, typename A, typename B, typename F>
void row2(Out* out, const A* a, const B* b, int64_t n, const F& f) {
  if constexpr (std::is_same_v<Out, A>) {
    if (out == a) return map2_inplace(out, b, n, f);
  }
  if constexpr (std::is_same_v<Out, B>) {
    if (out == b) return map2_inplace(out, a, n, [f](B y, A x) { return f(x, y); });
  }
  map2(out, a, b, n, f);
}
// A dense unary row: map1, or the op's own row function when it has one.
template <typename Out, typename In, typename F>
void row(Out* out, const In* in, int64_t n, const F& f, std::nullptr_t) {
  if constexpr (std::is_same_v<Out, In>) {
    if (out == in) return map1_inplace(out, n, f);
  }
  map1(out, in, n, f);
}
template <typename Out, typename In, typename F, typename DenseRow>
void row(Out* out, const In* in, int64_t n, const F&, const DenseRow& dense_row) {
  dense_row(out, in, n);
}
}  // namespace dense

template <typename T>
constexpr bool uses_clones_v = std::is_floating_point_v<T>;

// out[i] = f(in[i]) over out's shape, in broadcast to it, any strides (f: in_t -> out_t).
// dense_row(out_t*, const in_t*, n), when given, replaces f on dense float rows (for ops
// that are more than a per-element function there, like sin's fix-up of large arguments).
template <typename F, typename DenseRow = std::nullptr_t>
void unary_loop(const Tensor& out, const Tensor& in, const F& f, const DenseRow& dense_row = nullptr) {
  using traits = function_traits<F>;
  using out_t = typename traits::result;
  using in_t = std::tuple_element_t<0, typename traits::args>;
  if constexpr (!uses_clones_v<in_t> && !uses_clones_v<out_t>) {
    cpu_kernel(out, {&in}, f);
  } else {
    if (out.numel() == 0) return;
    auto g = make_geometry<2>(out, {&in});
    for_each_row<2>(g, kGrainSize, [&](char** p, const int64_t* s, int64_t n) {
      auto* o = reinterpret_cast<out_t*>(p[0]);
      auto* x = reinterpret_cast<const in_t*>(p[1]);
      if (s[0] != sizeof(out_t) || s[1] != sizeof(in_t))
        loop_impl::inner_loop(p, s, n, f, std::make_index_sequence<1>{});
      else
        dense::row(o, x, n, f, dense_row);
    });
  }
}

// out[i] = f(a[i], b[i]), a and b broadcast to out (f: (a_t, b_t) -> out_t).
template <typename F>
void binary_loop(const Tensor& out, const Tensor& a, const Tensor& b, const F& f) {
  using traits = function_traits<F>;
  using out_t = typename traits::result;
  using a_t = std::tuple_element_t<0, typename traits::args>;
  using b_t = std::tuple_element_t<1, typename traits::args>;
  if constexpr (!uses_clones_v<a_t> && !uses_clones_v<out_t>) {
    cpu_kernel(out, {&a, &b}, f);
  } else {
    if (out.numel() == 0) return;
    auto g = make_geometry<3>(out, {&a, &b});
    for_each_row<3>(g, kGrainSize, [&](char** p, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(out_t) && s[1] == sizeof(a_t) && s[2] == sizeof(b_t))
        dense::row2(reinterpret_cast<out_t*>(p[0]), reinterpret_cast<const a_t*>(p[1]),
                    reinterpret_cast<const b_t*>(p[2]), n, f);
      else
        loop_impl::inner_loop(p, s, n, f, std::make_index_sequence<2>{});
    });
  }
}

// out = f(a, b) for operands from prepare_binary with compute type T: f takes two
// opmath_t<T> values and returns something convert<Out> takes.
template <typename T, typename Out, typename F>
void binary_op(const Tensor& out, const BinaryOperands& ops, const F& f) {
  using O = opmath_t<T>;
  if constexpr (is_reduced_float_v<T>) {  // a block at a time in float32 (reduced_float_loops.h)
    if (ops.scalar == 2) {
      O s = scalar_value<O>(ops.b);
      reduced::unary<Out, T>(out, ops.a, [f, s](float x) { return f(x, s); });
    } else if (ops.scalar == 1) {
      O s = scalar_value<O>(ops.a);
      reduced::unary<Out, T>(out, ops.b, [f, s](float y) { return f(s, y); });
    } else {
      reduced::binary<Out, T, T>(out, ops.a, ops.b, [f](float x, float y) { return f(x, y); });
    }
    return;
  }
  if (ops.scalar == 2) {
    O s = scalar_value<O>(ops.b);
    unary_loop(out, ops.a, [f, s](T x) -> Out { return convert<Out>(f(O(x), s)); });
  } else if (ops.scalar == 1) {
    O s = scalar_value<O>(ops.a);
    unary_loop(out, ops.b, [f, s](T y) -> Out { return convert<Out>(f(s, O(y))); });
  } else {
    binary_loop(out, ops.a, ops.b, [f](T x, T y) -> Out { return convert<Out>(f(O(x), O(y))); });
  }
}

}  // namespace ember::cpu
