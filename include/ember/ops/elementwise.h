// Elementwise ops (torch.add, torch.exp, torch.where, ...): free functions.
//
// Every op broadcasts its inputs and promotes their dtypes as PyTorch does
// (result_type: a Python number, given here as a Scalar, does not widen a
// tensor of its own kind). Ops that only make sense on floats (exp, sqrt,
// true division, ...) turn integer inputs into the default float dtype.
// The in-place form name_ writes into self and returns it; it fails when
// the result's dtype cannot be cast to self's (an int tensor cannot take
// a float result) or when the broadcast shape is not self's shape.
#pragma once
#include <optional>
#include <string>

#include "ember/generated/elementwise_ops.h"  // this group's structured ops
#include "ember/tensor.h"

namespace ember {

// ---- unary math ----------------------------------------------------------------
Tensor neg(const Tensor& self);
Tensor& neg_(Tensor& self);
Tensor abs(const Tensor& self);
Tensor& abs_(Tensor& self);
Tensor sign(const Tensor& self);  // -1, 0 or 1 (0 for nan)
Tensor& sign_(Tensor& self);
Tensor exp(const Tensor& self);
Tensor& exp_(Tensor& self);
Tensor expm1(const Tensor& self);
Tensor& expm1_(Tensor& self);
Tensor log(const Tensor& self);
Tensor& log_(Tensor& self);
Tensor log1p(const Tensor& self);
Tensor& log1p_(Tensor& self);
Tensor log2(const Tensor& self);
Tensor& log2_(Tensor& self);
Tensor sqrt(const Tensor& self);
Tensor& sqrt_(Tensor& self);
Tensor rsqrt(const Tensor& self);
Tensor& rsqrt_(Tensor& self);
Tensor reciprocal(const Tensor& self);
Tensor& reciprocal_(Tensor& self);
Tensor square(const Tensor& self);  // pow(self, 2): bool gives int64
Tensor& square_(Tensor& self);
Tensor sin(const Tensor& self);
Tensor& sin_(Tensor& self);
Tensor cos(const Tensor& self);
Tensor& cos_(Tensor& self);
Tensor tan(const Tensor& self);
Tensor& tan_(Tensor& self);
Tensor tanh(const Tensor& self);
Tensor& tanh_(Tensor& self);
Tensor sigmoid(const Tensor& self);
Tensor& sigmoid_(Tensor& self);
Tensor erf(const Tensor& self);
Tensor& erf_(Tensor& self);
// Rounding; integer tensors come back unchanged (a copy).
Tensor floor(const Tensor& self);
Tensor& floor_(Tensor& self);
Tensor ceil(const Tensor& self);
Tensor& ceil_(Tensor& self);
Tensor trunc(const Tensor& self);
Tensor& trunc_(Tensor& self);
Tensor fix(const Tensor& self);  // trunc
// Half to even, at `decimals` digits after the point (negative: before it).
Tensor round(const Tensor& self, int64_t decimals = 0);
Tensor& round_(Tensor& self, int64_t decimals = 0);

// ---- activations ------------------------------------------------------------------
Tensor relu(const Tensor& self);
Tensor& relu_(Tensor& self);
// approximate: "none" (x * Phi(x), with erf) or "tanh".
Tensor gelu(const Tensor& self, const std::string& approximate = "none");
Tensor& gelu_(Tensor& self, const std::string& approximate = "none");
Tensor silu(const Tensor& self);
Tensor& silu_(Tensor& self);
// log(1 + exp(beta x)) / beta, or x where beta x > threshold.
Tensor softplus(const Tensor& self, const Scalar& beta = 1, const Scalar& threshold = 20);
Tensor leaky_relu(const Tensor& self, const Scalar& negative_slope = 0.01);
Tensor& leaky_relu_(Tensor& self, const Scalar& negative_slope = 0.01);

// ---- clamping and cleaning -----------------------------------------------------------
// At least one bound must be given; with min > max every element becomes max.
Tensor clamp(const Tensor& self, const std::optional<Scalar>& min,
             const std::optional<Scalar>& max = std::nullopt);
Tensor& clamp_(Tensor& self, const std::optional<Scalar>& min,
               const std::optional<Scalar>& max = std::nullopt);
// Tensor bounds (broadcast); an undefined Tensor() leaves that side open.
Tensor clamp(const Tensor& self, const Tensor& min, const Tensor& max);
Tensor& clamp_(Tensor& self, const Tensor& min, const Tensor& max);
Tensor clamp_min(const Tensor& self, const Scalar& min);
Tensor clamp_min(const Tensor& self, const Tensor& min);
Tensor& clamp_min_(Tensor& self, const Scalar& min);
Tensor clamp_max(const Tensor& self, const Scalar& max);
Tensor clamp_max(const Tensor& self, const Tensor& max);
Tensor& clamp_max_(Tensor& self, const Scalar& max);
Tensor clip(const Tensor& self, const std::optional<Scalar>& min,
            const std::optional<Scalar>& max = std::nullopt);
// nan -> nan; +inf -> posinf (default: the dtype's largest value); -inf -> neginf (its lowest).
Tensor nan_to_num(const Tensor& self, std::optional<double> nan = 0.0,
                  std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt);
Tensor& nan_to_num_(Tensor& self, std::optional<double> nan = 0.0,
                    std::optional<double> posinf = std::nullopt,
                    std::optional<double> neginf = std::nullopt);

// ---- predicates (bool results) -----------------------------------------------------------
// isnan, isinf, isfinite, logical_not(_) are structured: ember/generated/elementwise_ops.h.
Tensor bitwise_not(const Tensor& self);  // integer and bool tensors
Tensor& bitwise_not_(Tensor& self);

// ---- binary arithmetic ----------------------------------------------------------------------
Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);  // self + alpha other
Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
Tensor& add_(Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor& add_(Tensor& self, const Scalar& other, const Scalar& alpha = 1);
Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);  // self - alpha other
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
Tensor& sub_(Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor& sub_(Tensor& self, const Scalar& other, const Scalar& alpha = 1);
Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);  // other - alpha self
Tensor rsub(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
Tensor mul(const Tensor& self, const Tensor& other);
Tensor mul(const Tensor& self, const Scalar& other);
Tensor& mul_(Tensor& self, const Tensor& other);
Tensor& mul_(Tensor& self, const Scalar& other);
// rounding_mode: none (true division: integers give the default float dtype),
// "trunc" (toward zero) or "floor" (toward -inf, as Python's //).
Tensor div(const Tensor& self, const Tensor& other,
           const std::optional<std::string>& rounding_mode = std::nullopt);
Tensor div(const Tensor& self, const Scalar& other,
           const std::optional<std::string>& rounding_mode = std::nullopt);
Tensor& div_(Tensor& self, const Tensor& other,
             const std::optional<std::string>& rounding_mode = std::nullopt);
Tensor& div_(Tensor& self, const Scalar& other,
             const std::optional<std::string>& rounding_mode = std::nullopt);
Tensor floor_divide(const Tensor& self, const Tensor& other);  // div(..., "floor")
Tensor true_divide(const Tensor& self, const Tensor& other);
Tensor remainder(const Tensor& self, const Tensor& other);  // Python's %: sign of other
Tensor remainder(const Tensor& self, const Scalar& other);
Tensor& remainder_(Tensor& self, const Tensor& other);
Tensor& remainder_(Tensor& self, const Scalar& other);
Tensor fmod(const Tensor& self, const Tensor& other);  // C's fmod: sign of self
Tensor fmod(const Tensor& self, const Scalar& other);
Tensor& fmod_(Tensor& self, const Tensor& other);
Tensor& fmod_(Tensor& self, const Scalar& other);
// Integers to a negative Scalar power are an error, as in PyTorch.
Tensor pow(const Tensor& self, const Tensor& exponent);
Tensor pow(const Tensor& self, const Scalar& exponent);
Tensor pow(const Scalar& self, const Tensor& exponent);
Tensor& pow_(Tensor& self, const Tensor& exponent);
Tensor& pow_(Tensor& self, const Scalar& exponent);
Tensor maximum(const Tensor& self, const Tensor& other);  // nan wins
Tensor minimum(const Tensor& self, const Tensor& other);
Tensor atan2(const Tensor& self, const Tensor& other);
// grad_output where self > threshold, else 0: the backward of relu and threshold.
Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, const Scalar& threshold);
Tensor& atan2_(Tensor& self, const Tensor& other);
// start + weight (end - start)
Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight);
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight);
Tensor& lerp_(Tensor& self, const Tensor& end, const Scalar& weight);
Tensor& lerp_(Tensor& self, const Tensor& end, const Tensor& weight);

// ---- comparisons and logic (bool results) ------------------------------------------------
Tensor eq(const Tensor& self, const Tensor& other);
Tensor eq(const Tensor& self, const Scalar& other);
Tensor ne(const Tensor& self, const Tensor& other);
Tensor ne(const Tensor& self, const Scalar& other);
Tensor lt(const Tensor& self, const Tensor& other);
Tensor lt(const Tensor& self, const Scalar& other);
Tensor le(const Tensor& self, const Tensor& other);
Tensor le(const Tensor& self, const Scalar& other);
Tensor gt(const Tensor& self, const Tensor& other);
Tensor gt(const Tensor& self, const Scalar& other);
Tensor ge(const Tensor& self, const Tensor& other);
Tensor ge(const Tensor& self, const Scalar& other);
Tensor logical_and(const Tensor& self, const Tensor& other);
Tensor logical_or(const Tensor& self, const Tensor& other);
Tensor logical_xor(const Tensor& self, const Tensor& other);
Tensor bitwise_and(const Tensor& self, const Tensor& other);
Tensor bitwise_and(const Tensor& self, const Scalar& other);
Tensor bitwise_or(const Tensor& self, const Tensor& other);
Tensor bitwise_or(const Tensor& self, const Scalar& other);
Tensor bitwise_xor(const Tensor& self, const Tensor& other);
Tensor bitwise_xor(const Tensor& self, const Scalar& other);
Tensor bitwise_left_shift(const Tensor& self, const Tensor& other);
Tensor bitwise_left_shift(const Tensor& self, const Scalar& other);
Tensor bitwise_right_shift(const Tensor& self, const Tensor& other);
Tensor bitwise_right_shift(const Tensor& self, const Scalar& other);
// condition ? self : other, broadcast; condition must be bool.
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other);
Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other);
Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other);
Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other);

// ---- in-place forms of the binary ops that PyTorch also has as methods -------------------
// (self.eq_(other) and the like write 0/1 into self's dtype.)
Tensor& eq_(Tensor& self, const Tensor& other);
Tensor& ne_(Tensor& self, const Tensor& other);
Tensor& lt_(Tensor& self, const Tensor& other);
Tensor& le_(Tensor& self, const Tensor& other);
Tensor& gt_(Tensor& self, const Tensor& other);
Tensor& ge_(Tensor& self, const Tensor& other);
Tensor& maximum_(Tensor& self, const Tensor& other);
Tensor& minimum_(Tensor& self, const Tensor& other);
Tensor& logical_and_(Tensor& self, const Tensor& other);
Tensor& logical_or_(Tensor& self, const Tensor& other);
Tensor& logical_xor_(Tensor& self, const Tensor& other);
Tensor& bitwise_and_(Tensor& self, const Tensor& other);
Tensor& bitwise_or_(Tensor& self, const Tensor& other);
Tensor& bitwise_xor_(Tensor& self, const Tensor& other);
Tensor& bitwise_left_shift_(Tensor& self, const Tensor& other);
Tensor& bitwise_right_shift_(Tensor& self, const Tensor& other);

// ---- C++ operators ----------------------------------------------------------------------------
Tensor operator-(const Tensor& self);
Tensor operator~(const Tensor& self);
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator%(const Tensor& a, const Tensor& b);
Tensor operator%(const Tensor& a, const Scalar& b);
Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Scalar& b);
Tensor& operator-=(Tensor& a, const Tensor& b);
Tensor& operator-=(Tensor& a, const Scalar& b);
Tensor& operator*=(Tensor& a, const Tensor& b);
Tensor& operator*=(Tensor& a, const Scalar& b);
Tensor& operator/=(Tensor& a, const Tensor& b);
Tensor& operator/=(Tensor& a, const Scalar& b);

}  // namespace ember
