// Elementwise loops over float16 / bfloat16 operands, a block at a time: each block
// of a row is widened to float32 in a stack buffer by the vector converters of
// half_convert.h (F16C, AVX-512/AVX2 integer rounding), the op's float32 function
// runs over the buffer in a loop compiled once per ISA (EMBER_TARGET_CLONES, as the
// float32 rows), and the results are narrowed back in bulk. Element by element, the
// conversions in ember/half.h do not vectorize and cost more than the op itself.
//
// Results are those of the element loop: the op's float32 math on the exact widened
// values, then one rounding to nearest-even. Rows shorter than kMinRow (a narrow
// innermost dim) run element by element: the block set-up would cost more.
//
// Included by cpu/elementwise.h after EMBER_TARGET_CLONES; the caller is binary_op
// there, which knows the op's float function (the loops of elementwise.h see only the
// Half/BFloat16 wrapper). The unary shapes (cpu/unary_helpers.h) still go element by
// element: routing them here made GCC compile some transcendental formulas differently
// for other dtypes too (log_ndtr in float64, the Bessel functions in float32, by 2-6
// ulp), which the fused pointwise evaluator's bit-for-bit check (test_fusion.cpp)
// caught; unary.cpp's float16 paths are left for when that is understood.
#pragma once
#include <algorithm>
#include <type_traits>

#include "cpu/half_convert.h"
#include "cpu/loops.h"
#include "kernels/element_types.h"

namespace ember::cpu::reduced {

constexpr int64_t kBlock = 512;  // floats per buffer: two buffers stay well inside L1
constexpr int64_t kMinRow = 16;

template <typename F>
EMBER_TARGET_CLONES void apply1(float* x, int64_t n, const F& f) {
  for (int64_t i = 0; i < n; ++i) x[i] = f(x[i]);
}
template <typename F>
EMBER_TARGET_CLONES void apply2(float* x, const float* y, int64_t n, const F& f) {
  for (int64_t i = 0; i < n; ++i) x[i] = f(x[i], y[i]);
}
template <typename Out, typename F>
EMBER_TARGET_CLONES void apply1_to(Out* out, const float* x, int64_t n, const F& f) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(x[i]);
}
template <typename Out, typename F>
EMBER_TARGET_CLONES void apply2_to(Out* out, const float* x, const float* y, int64_t n, const F& f) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
}

// n values of T (Half or BFloat16) from p, byte stride s (0: one value repeated), as float.
template <typename T>
inline void load(float* dst, const char* p, int64_t s, int64_t n) {
  static_assert(is_reduced_float_v<T>);
  if (s == static_cast<int64_t>(sizeof(T))) return to_float_bulk(dst, reinterpret_cast<const T*>(p), n);
  if (s == 0) {
    std::fill_n(dst, n, static_cast<float>(*reinterpret_cast<const T*>(p)));
    return;
  }
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(*reinterpret_cast<const T*>(p + i * s));
}

template <typename T>
inline void store(char* p, int64_t s, const float* src, int64_t n) {
  if (s == static_cast<int64_t>(sizeof(T))) return from_float_bulk(reinterpret_cast<T*>(p), src, n);
  for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p + i * s) = T(src[i]);
}

// out[i] = convert<Out>(g(float(in[i]))), In Half or BFloat16, g: float -> a number.
template <typename Out, typename In, typename G>
void unary(const Tensor& out, const Tensor& in, const G& g) {
  if (out.numel() == 0) return;
  auto geo = make_geometry<2>(out, {&in});
  auto element = [g](In x) -> Out { return convert<Out>(g(static_cast<float>(x))); };
  for_each_row<2>(geo, kGrainSize, [&](char** p, const int64_t* s, int64_t n) {
    if (n < kMinRow) return loop_impl::inner_loop(p, s, n, element, std::make_index_sequence<1>{});
    alignas(64) float x[kBlock];
    for (int64_t j = 0; j < n; j += kBlock) {
      const int64_t m = std::min(kBlock, n - j);
      char* o = p[0] + j * s[0];
      load<In>(x, p[1] + j * s[1], s[1], m);
      if constexpr (is_reduced_float_v<Out>) {
        apply1(x, m, [g](float v) { return static_cast<float>(g(v)); });
        store<Out>(o, s[0], x, m);
      } else if (s[0] == static_cast<int64_t>(sizeof(Out))) {
        apply1_to(reinterpret_cast<Out*>(o), x, m, [g](float v) { return convert<Out>(g(v)); });
      } else {
        for (int64_t i = 0; i < m; ++i) *reinterpret_cast<Out*>(o + i * s[0]) = convert<Out>(g(x[i]));
      }
    }
  });
}

// out[i] = convert<Out>(g(float(a[i]), float(b[i]))), a and b Half or BFloat16
// broadcast to out.
template <typename Out, typename A, typename B, typename G>
void binary(const Tensor& out, const Tensor& a, const Tensor& b, const G& g) {
  if (out.numel() == 0) return;
  auto geo = make_geometry<3>(out, {&a, &b});
  auto element = [g](A x, B y) -> Out {
    return convert<Out>(g(static_cast<float>(x), static_cast<float>(y)));
  };
  for_each_row<3>(geo, kGrainSize, [&](char** p, const int64_t* s, int64_t n) {
    if (n < kMinRow) return loop_impl::inner_loop(p, s, n, element, std::make_index_sequence<2>{});
    alignas(64) float x[kBlock], y[kBlock];
    for (int64_t j = 0; j < n; j += kBlock) {
      const int64_t m = std::min(kBlock, n - j);
      char* o = p[0] + j * s[0];
      load<A>(x, p[1] + j * s[1], s[1], m);
      load<B>(y, p[2] + j * s[2], s[2], m);
      if constexpr (is_reduced_float_v<Out>) {
        apply2(x, y, m, [g](float u, float v) { return static_cast<float>(g(u, v)); });
        store<Out>(o, s[0], x, m);
      } else if (s[0] == static_cast<int64_t>(sizeof(Out))) {
        apply2_to(reinterpret_cast<Out*>(o), x, y, m, [g](float u, float v) { return convert<Out>(g(u, v)); });
      } else {
        for (int64_t i = 0; i < m; ++i) *reinterpret_cast<Out*>(o + i * s[0]) = convert<Out>(g(x[i], y[i]));
      }
    }
  });
}

}  // namespace ember::cpu::reduced
