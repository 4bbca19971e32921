// Unary elementwise op functions: math, rounding, activations, clamp,
// nan_to_num and the predicates. Each checks its argument and dispatches its
// row (lib/dispatch/schema/elementwise.toml); kernels are in lib/cpu.
#include "ops/elementwise_common.h"
#include "dispatch/args/elementwise.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember {

using namespace elementwise_detail;

namespace {

// How an op's result dtype follows from its input's.
enum class Result { kSame, kFloat, kBool };

DType result_dtype(Result r, DType in) {
  return r == Result::kSame ? in : r == Result::kFloat ? float_dtype(in) : kBool;
}

Tensor& unary_(OpId op, Tensor& self, Result r, SmallVector<Attr, 4> attrs = {}) {
  return elementwise_detail::unary_(op, self, result_dtype(r, self.dtype()), std::move(attrs));
}

}  // namespace

// ---- math ------------------------------------------------------------------------------

static void check_neg(const char* op, const Tensor& self) {
  EMBER_CHECK_AS(NotImplementedError, !self.defined() || self.dtype() != kBool, op,
                 ": negation, the `-` operator, on a bool tensor is not supported. If you are "
                 "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}
Tensor neg(const Tensor& self) {
  check_neg("neg", self);
  return unary(opid::neg, self);
}
Tensor& neg_(Tensor& self) {
  check_neg("neg_", self);
  return unary_(opid::neg, self, Result::kSame);
}

#define EMBER_UNARY(name, result)                                                    \
  Tensor name(const Tensor& self) { return unary(opid::name, self); }                \
  Tensor& name##_(Tensor& self) { return unary_(opid::name, self, Result::result); }

EMBER_UNARY(sign, kSame)
EMBER_UNARY(exp, kFloat)
EMBER_UNARY(expm1, kFloat)
EMBER_UNARY(log, kFloat)
EMBER_UNARY(log1p, kFloat)
EMBER_UNARY(log2, kFloat)
EMBER_UNARY(sqrt, kFloat)
EMBER_UNARY(rsqrt, kFloat)
EMBER_UNARY(reciprocal, kFloat)
EMBER_UNARY(sin, kFloat)
EMBER_UNARY(cos, kFloat)
EMBER_UNARY(tan, kFloat)
EMBER_UNARY(tanh, kFloat)
EMBER_UNARY(sigmoid, kFloat)
EMBER_UNARY(erf, kFloat)
#undef EMBER_UNARY

// Ops with no bool kernel (as in PyTorch).
#define EMBER_UNARY_NO_BOOL(name)                                                   \
  Tensor name(const Tensor& self) {                                                 \
    check_not_bool(#name, self);                                                    \
    return unary(opid::name, self);                                                 \
  }                                                                                 \
  Tensor& name##_(Tensor& self) {                                                   \
    check_not_bool(#name "_", self);                                                \
    return unary_(opid::name, self, Result::kSame);                                 \
  }

EMBER_UNARY_NO_BOOL(abs)
EMBER_UNARY_NO_BOOL(floor)
EMBER_UNARY_NO_BOOL(ceil)
EMBER_UNARY_NO_BOOL(trunc)
#undef EMBER_UNARY_NO_BOOL

Tensor fix(const Tensor& self) { return trunc(self); }

Tensor square(const Tensor& self) { return pow(self, 2); }
Tensor& square_(Tensor& self) { return pow_(self, 2); }

static void check_round(const char* op, const Tensor& self, int64_t decimals) {
  check_not_bool(op, self);
  if (decimals != 0) check_floating(op, self);
}
Tensor round(const Tensor& self, int64_t decimals) {
  check_round("round", self, decimals);
  return unary(opid::round, self, RoundArgs{.decimals = decimals}.attrs());
}
Tensor& round_(Tensor& self, int64_t decimals) {
  check_round("round_", self, decimals);
  return unary_(opid::round, self, Result::kSame, RoundArgs{.decimals = decimals}.attrs());
}

// ---- activations -------------------------------------------------------------------------

static void check_relu(const char* op, const Tensor& self) {
  EMBER_CHECK_AS(NotImplementedError, !self.defined() || self.dtype() != kBool, op,
                 ": Boolean inputs not supported for relu");
}
Tensor relu(const Tensor& self) {
  check_relu("relu", self);
  return unary(opid::relu, self);
}
Tensor& relu_(Tensor& self) {
  check_relu("relu_", self);
  return unary_(opid::relu, self, Result::kSame);
}

static std::string checked_approximate(const std::string& approximate) {
  EMBER_CHECK(approximate == "none" || approximate == "tanh",
              "gelu: approximate argument must be either none or tanh, got '", approximate, "'");
  return approximate;
}
Tensor gelu(const Tensor& self, const std::string& approximate) {
  check_floating("gelu", self);
  return unary(opid::gelu, self, GeluArgs{.approximate = checked_approximate(approximate)}.attrs());
}
Tensor& gelu_(Tensor& self, const std::string& approximate) {
  check_floating("gelu_", self);
  return unary_(opid::gelu, self, Result::kSame,
                GeluArgs{.approximate = checked_approximate(approximate)}.attrs());
}

Tensor silu(const Tensor& self) {
  check_floating("silu", self);
  return unary(opid::silu, self);
}
Tensor& silu_(Tensor& self) {
  check_floating("silu_", self);
  return unary_(opid::silu, self, Result::kSame);
}

Tensor softplus(const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  check_floating("softplus", self);
  return unary(opid::softplus, self, SoftplusArgs{.beta = beta, .threshold = threshold}.attrs());
}

Tensor leaky_relu(const Tensor& self, const Scalar& negative_slope) {
  check_floating("leaky_relu", self);
  return unary(opid::leaky_relu, self, LeakyReluArgs{.negative_slope = negative_slope}.attrs());
}
Tensor& leaky_relu_(Tensor& self, const Scalar& negative_slope) {
  check_floating("leaky_relu_", self);
  return unary_(opid::leaky_relu, self, Result::kSame,
                LeakyReluArgs{.negative_slope = negative_slope}.attrs());
}

// ---- clamp -------------------------------------------------------------------------------

namespace {

// The dtype and shape of clamp's result, after checking its arguments.
DType clamp_result(const char* op, const Tensor& self, const Tensor& min, const Tensor& max,
                   DimVector* shape) {
  check_defined(op, self);
  EMBER_CHECK(min.defined() || max.defined(), op,
              ": at least one of 'min' or 'max' must not be None");
  DType dt = result_type({&self, &min, &max});
  if (dt == kBool) not_implemented(op, kBool);
  *shape = self.sizes();
  if (min.defined()) *shape = broadcast_shapes(*shape, min.sizes(), op);
  if (max.defined()) *shape = broadcast_shapes(*shape, max.sizes(), op);
  return dt;
}

Tensor bound(const std::optional<Scalar>& v) { return v ? wrapped_scalar(*v) : Tensor(); }

}  // namespace

Tensor clamp(const Tensor& self, const Tensor& min, const Tensor& max) {
  DimVector shape;
  clamp_result("clamp", self, min, max, &shape);
  OpCall call(opid::clamp, {self, min, max});
  return run(call);
}
Tensor& clamp_(Tensor& self, const Tensor& min, const Tensor& max) {
  DimVector shape;
  DType dt = clamp_result("clamp_", self, min, max, &shape);
  OpCall call(opid::clamp, {self, min, max});
  return run_inplace(call, self, dt, shape);
}
Tensor clamp(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return clamp(self, bound(min), bound(max));
}
Tensor& clamp_(Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return clamp_(self, bound(min), bound(max));
}
Tensor clamp_min(const Tensor& self, const Scalar& min) { return clamp(self, min, std::nullopt); }
Tensor clamp_min(const Tensor& self, const Tensor& min) { return clamp(self, min, Tensor()); }
Tensor& clamp_min_(Tensor& self, const Scalar& min) { return clamp_(self, min, std::nullopt); }
Tensor clamp_max(const Tensor& self, const Scalar& max) { return clamp(self, std::nullopt, max); }
Tensor clamp_max(const Tensor& self, const Tensor& max) { return clamp(self, Tensor(), max); }
Tensor& clamp_max_(Tensor& self, const Scalar& max) { return clamp_(self, std::nullopt, max); }
Tensor clip(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return clamp(self, min, max);
}

// ---- cleaning and predicates ------------------------------------------------------------------

Tensor nan_to_num(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  return unary(opid::nan_to_num, self, NanToNumArgs{.nan = nan, .posinf = posinf, .neginf = neginf}.attrs());
}
Tensor& nan_to_num_(Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                    std::optional<double> neginf) {
  return unary_(opid::nan_to_num, self, Result::kSame,
                NanToNumArgs{.nan = nan, .posinf = posinf, .neginf = neginf}.attrs());
}

// isnan, isinf, isfinite, logical_not(_) are structured (generated from their rows).

Tensor bitwise_not(const Tensor& self) {
  if (self.defined() && self.is_floating_point()) not_implemented("bitwise_not", self.dtype());
  return unary(opid::bitwise_not, self);
}
Tensor& bitwise_not_(Tensor& self) {
  if (self.defined() && self.is_floating_point()) not_implemented("bitwise_not_", self.dtype());
  return unary_(opid::bitwise_not, self, Result::kSame);
}

}  // namespace ember
