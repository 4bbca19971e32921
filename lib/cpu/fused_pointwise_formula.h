// The CPU's formula table for fused pointwise programs (kernels/fused_pointwise.h,
// used by lib/jit/runtime/fusion.h): for each op a fused group may hold, how one of its
// nodes becomes an instruction (its formula and attributes), and each formula as block
// loops, one per dtype and operand layout.
//
// The per-element functions are the ones the eager CPU kernels call (lib/kernels/*_math.h,
// and cpu/vec_math.h where the eager float32 rows use the vectorizable versions), in the
// same opmath type, compiled through the same per-ISA clones (EMBER_TARGET_CLONES): so a
// fused loop computes each element exactly as the node's own kernel does. They reach the
// table two ways:
//   - the structured ops' formulas (schema rows with kernel = {kind, formula}) through
//     the code generator: lib/dispatch/codegen/gen_structured.py writes
//     cpu/fused_structured_formulas.inc, a list fused_pointwise_ops.cpp expands;
//   - the hand-written eager kernels' formulas (add, mul, gelu, ...) registered in
//     fused_pointwise_ops.cpp with the macros below, next to the same functions those kernels call.
#pragma once
#include <cstdint>
#include <type_traits>

#include "cpu/elementwise.h"  // EMBER_TARGET_CLONES
#include "kernels/fused_pointwise.h"

namespace ember::cpu::fused {

using kernels::fused::BlockFn;
using kernels::fused::LowerFn;
using kernels::fused::PointwiseFormula;
using kernels::fused::register_pointwise_op;

// A node's attributes as the formula reads them, converted to the compute type once
// per block (from FusedInstr::params, doubles, as the eager kernels convert theirs).
template <typename T>
struct FormulaParams {
  T p0, p1, p2, p3;
};

namespace fusion_detail {

template <typename T>
inline FormulaParams<T> params_as(const double* p) {
  return {static_cast<T>(p[0]), static_cast<T>(p[1]), static_cast<T>(p[2]), static_cast<T>(p[3])};
}

// The block loops: plain loops the compiler vectorizes, once per ISA as the eager rows.
// The formula itself is always inlined (the macros below); what it calls is inlined as the
// compiler decides, as in the eager rows. Where the two decide differently (a large special
// function inlined into one and called from the other, so compiled with or without FMA),
// the op is left out of the table (fused_pointwise_ops.cpp); the tests check every other op.
#define EMBER_FUSION_BLOCK EMBER_TARGET_CLONES
template <typename F, typename T>
EMBER_FUSION_BLOCK void unary_block(T* __restrict out, const T* a, const T*, int64_t n,
                                     const double* params) {
  const FormulaParams<T> k = params_as<T>(params);
  const F f{};
  for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], k);
}
template <typename F, typename T>
EMBER_FUSION_BLOCK void binary_block(T* __restrict out, const T* a, const T* b, int64_t n,
                                      const double* params) {
  const FormulaParams<T> k = params_as<T>(params);
  const F f{};
  for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i], k);
}
template <typename F, typename T>
EMBER_FUSION_BLOCK void binary_block_first_scalar(T* __restrict out, const T* a, const T* b,
                                                   int64_t n, const double* params) {
  const FormulaParams<T> k = params_as<T>(params);
  const F f{};
  const T s = a[0];
  for (int64_t i = 0; i < n; ++i) out[i] = f(s, b[i], k);
}
template <typename F, typename T>
EMBER_FUSION_BLOCK void binary_block_second_scalar(T* __restrict out, const T* a, const T* b,
                                                    int64_t n, const double* params) {
  const FormulaParams<T> k = params_as<T>(params);
  const F f{};
  const T s = b[0];
  for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], s, k);
}

}  // namespace fusion_detail

// F: a stateless generic lambda type, f(x, params) or f(x, y, params), over float and double
// (the macros at the end write it).
template <typename F>
inline PointwiseFormula unary_formula(const char* name) {
  using namespace fusion_detail;
  return {name, 1, {&unary_block<F, float>, nullptr, nullptr}, {&unary_block<F, double>, nullptr, nullptr}};
}
template <typename F>
inline PointwiseFormula binary_formula(const char* name) {
  using namespace fusion_detail;
  return {name, 2,
          {&binary_block<F, float>, &binary_block_first_scalar<F, float>, &binary_block_second_scalar<F, float>},
          {&binary_block<F, double>, &binary_block_first_scalar<F, double>,
           &binary_block_second_scalar<F, double>}};
}

// A binary formula whose one-element forms differ from the array form, as an eager kernel
// with its own paths for a number operand (pow): FA for arrays, F1 / F2 when the first /
// second operand is one element.
template <typename FA, typename F1, typename F2>
inline PointwiseFormula binary_formula_by_layout(const char* name, bool exact_scalars) {
  using namespace fusion_detail;
  return {name, 2,
          {&binary_block<FA, float>, &binary_block_first_scalar<F1, float>, &binary_block_second_scalar<F2, float>},
          {&binary_block<FA, double>, &binary_block_first_scalar<F1, double>,
           &binary_block_second_scalar<F2, double>},
          exact_scalars};
}

struct PointwiseOpRegistrar {
  PointwiseOpRegistrar(OpId op, LowerFn lower) { register_pointwise_op(op, lower); }
};

}  // namespace ember::cpu::fused

// A formula from its body, a function of x (and y) and the params k, over float and double:
//   EMBER_FUSION_UNARY(f_relu, { return relu_value(x); });
//   EMBER_FUSION_BINARY(f_add_alpha, { return wrap_add(x, wrap_mul(k.p0, y)); });
// The body becomes a lambda forced inline: one left as a call in a block loop would stop
// it vectorizing, and would run with the baseline ISA, not the loop's clone (so rounding
// differently from the eager kernel, whose formula is inlined into its cloned row).
#define EMBER_FUSION_UNARY(var, ...)                                                      \
  static const ::ember::kernels::fused::PointwiseFormula var =                              \
      ::ember::cpu::fused::unary_formula<decltype(                                      \
          [](auto x, const auto& k) __attribute__((always_inline)) __VA_ARGS__)>(#var)
#define EMBER_FUSION_BINARY(var, ...)                                                     \
  static const ::ember::kernels::fused::PointwiseFormula var =                              \
      ::ember::cpu::fused::binary_formula<decltype(                                     \
          [](auto x, auto y, const auto& k) __attribute__((always_inline)) __VA_ARGS__)>(#var)

// A binary formula's function type, for binary_formula_by_layout:
//   EMBER_FUSION_BINARY_FN(PowArrays, { return std::pow(x, y); });
#define EMBER_FUSION_BINARY_FN(type, ...) \
  using type = decltype([](auto x, auto y, const auto& k) __attribute__((always_inline)) __VA_ARGS__)

// The lowering of an op: EMBER_FUSION_OP(gelu, [](const std::vector<Attr>& a, double* p) -> const PointwiseFormula* {...}).
#define EMBER_FUSION_OP(op, ...)                                                  \
  static ::ember::cpu::fused::PointwiseOpRegistrar ember_fusion_op_##op(        \
      ::ember::opid::op, static_cast<::ember::kernels::fused::LowerFn>(__VA_ARGS__))
// An op without attributes that always uses one formula.
#define EMBER_FUSION_SIMPLE_OP(op, formula)                                       \
  EMBER_FUSION_OP(op, [](const std::vector<::ember::Attr>&, double*) -> const ::ember::kernels::fused::PointwiseFormula* { \
    return &formula;                                                              \
  })
