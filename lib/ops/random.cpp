// Random sampling: the op functions of the random ops (uniform_, normal_, random_,
// bernoulli_, randperm), the factories built on them (rand, randn, randint) and the
// composites bernoulli and normal. Each op function checks its arguments, reserves
// the numbers it needs from the generator and passes that stream to the kernel.
#include "ember/ops/random.h"

#include <cmath>
#include <limits>

#include "dispatch/args/core.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/core.h"
#include "dispatch/op_ids/reduce.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"
#include "ember/ops/views.h"
#include "ops/random_call.h"

namespace ember {

namespace {

// Runs a random in-place op (Args' op) on self, drawing numel(self) counters from the
// generator: the reserved stream travels as the call's seed and offset attrs
// (ops/random_call.h), so the kernel needs no generator.
template <typename Args>
Tensor& run_random(Tensor& self, Args args, Generator* generator) {
  const OpId op = Args::op;
  EMBER_CHECK(self.defined(), op_name(op), ": undefined tensor");
  Generator& g = generator_or_default(generator, self.device(), op_name(op));
  const PhiloxState stream = g.reserve(static_cast<uint64_t>(self.numel()));
  args.seed = static_cast<int64_t>(stream.seed);
  args.offset = static_cast<int64_t>(stream.offset);
  OpCall call(op, SmallVector<Tensor, 4>{self}, args.attrs());
  call.outputs.push_back(self);
  dispatch(call);
  return self;
}

// PyTorch has no uniform / normal / bernoulli kernel for an integer or bool dtype:
// NotImplementedError, as its dispatch says.
void check_floating(const Tensor& self, const char* op) {
  EMBER_CHECK_AS(NotImplementedError, is_floating(self.dtype()), op,
                 ": expected a floating point tensor, got ", dtype_name(self.dtype()));
}

// The integers random_ may produce for a dtype, inclusive: those the dtype holds
// exactly (for floating dtypes, all integers up to 2^mantissa bits), as in PyTorch.
struct IntRange {
  int64_t lo, hi;
};
IntRange random_bounds(DType dt) {
  switch (dt) {
    case kBool: return {0, 1};
    case kUInt8: return {0, 255};
    case kInt8: return {-128, 127};
    case kInt16: return {-32768, 32767};
    case kInt32: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case kInt64: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
    case kFloat16: return {-(int64_t(1) << 11), int64_t(1) << 11};
    case kBFloat16: return {-(int64_t(1) << 8), int64_t(1) << 8};
    case kFloat32: return {-(int64_t(1) << 24), int64_t(1) << 24};
    case kFloat64: return {-(int64_t(1) << 53), int64_t(1) << 53};
  }
  return {0, 0};
}

// Integers in [from, hi] with hi inclusive (so that [0, 2^63 - 1] has a span: 2^63).
Tensor& random_inclusive(Tensor& self, int64_t from, int64_t hi, Generator* generator) {
  uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(from) + 1;  // 0: 2^64
  return run_random(self, RandomArgs{.low = from, .span = static_cast<int64_t>(span)}, generator);
}

// A floating factory's output, before a sampler fills it.
Tensor empty_floating(const IntList& sizes, const TensorOptions& options, const char* op) {
  DType dt = options.dtype_or(default_dtype());
  // PyTorch: no uniform / normal kernel for an integer or bool dtype (NotImplementedError).
  EMBER_CHECK_AS(NotImplementedError, is_floating(dt), op, ": expected a floating dtype, got ",
                 dtype_name(dt));
  return empty(sizes, options.dtype(dt).requires_grad(false));
}

// A factory's result: sampled untracked, then marked as requires_grad asks.
Tensor finish_factory(Tensor t, const TensorOptions& options) {
  if (options.requires_grad_) t.requires_grad_(true);
  return t;
}

}  // namespace

Tensor& uniform_(Tensor& self, double from, double to, Generator* generator) {
  check_floating(self, "uniform_");
  EMBER_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from,
              " > to=", to);
  EMBER_CHECK(std::isfinite(to - from), "uniform_ expects to-from to be finite, but found to-from=",
              to - from);
  return run_random(self, UniformArgs{.low = from, .high = to}, generator);
}

Tensor& normal_(Tensor& self, double mean, double std, Generator* generator) {
  check_floating(self, "normal_");
  EMBER_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  return run_random(self, NormalArgs{.mean = mean, .std = std}, generator);
}

Tensor& random_(Tensor& self, Generator* generator) {
  EMBER_CHECK(self.defined(), "random_: undefined tensor");
  IntRange r = random_bounds(self.dtype());
  return random_inclusive(self, 0, r.hi, generator);
}

Tensor& random_(Tensor& self, int64_t to, Generator* generator) {
  return random_(self, 0, std::optional<int64_t>(to), generator);
}

Tensor& random_(Tensor& self, int64_t from, std::optional<int64_t> to, Generator* generator) {
  EMBER_CHECK(self.defined(), "random_: undefined tensor");
  IntRange r = random_bounds(self.dtype());
  const char* dt = dtype_name(self.dtype());
  EMBER_CHECK(from >= r.lo && from <= r.hi, "random_: from is out of bounds for ", dt);
  if (!to) return random_inclusive(self, from, r.hi, generator);
  EMBER_CHECK(from < *to, "random_ expects 'from' to be less than 'to', but got from=", from,
              " >= to=", *to);
  EMBER_CHECK(*to - 1 <= r.hi, "random_: to - 1 is out of bounds for ", dt);
  return random_inclusive(self, from, *to - 1, generator);
}

Tensor& bernoulli_(Tensor& self, double p, Generator* generator) {
  EMBER_CHECK(p >= 0 && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  return run_random(self, BernoulliArgs{.p = p}, generator);
}

Tensor& bernoulli_(Tensor& self, const Tensor& p, Generator* generator) {
  EMBER_CHECK(self.defined() && p.defined(), "bernoulli_: undefined tensor");
  EMBER_CHECK(all(logical_and(ge(p, 0), le(p, 1))).item<bool>(),
              "bernoulli_ expects all elements of p to be in [0, 1]");
  // self = (u < p) for u uniform in [0, 1): P(1) = p. Drawn in p's precision.
  DType udt = is_floating(p.dtype()) ? p.dtype() : kFloat64;
  Tensor u = empty(self.sizes(), TensorOptions(udt).device(self.device()));
  uniform_(u, 0, 1, generator);
  return copy_(self, lt(u, p.detach()));
}

Tensor bernoulli(const Tensor& input, Generator* generator) {
  EMBER_CHECK(input.defined(), "bernoulli: undefined tensor");
  check_floating(input, "bernoulli");
  Tensor out = empty_like(input);
  return bernoulli_(out, input, generator);
}

Tensor bernoulli(const Tensor& input, double p, Generator* generator) {
  EMBER_CHECK(input.defined(), "bernoulli: undefined tensor");
  Tensor out = empty_like(input);
  return bernoulli_(out, p, generator);
}

// torch.normal's tensor forms: mean + std * z. As in PyTorch no gradient flows
// to mean or std (use a reparameterized sample for that), so they are detached.
Tensor normal(const Tensor& mean, const Tensor& std, Generator* generator) {
  EMBER_CHECK(mean.defined() && std.defined(), "normal: undefined tensor");
  EMBER_CHECK(is_floating(mean.dtype()) && is_floating(std.dtype()),
              "normal: expected floating point mean and std, got ", dtype_name(mean.dtype()), " and ",
              dtype_name(std.dtype()));
  EMBER_CHECK(all(ge(std, 0)).item<bool>(), "normal expects all elements of std >= 0.0");
  DimVector shape = broadcast_shapes(mean.sizes(), std.sizes(), "normal");
  Tensor z = empty(shape, TensorOptions(promote_types(mean.dtype(), std.dtype())).device(mean.device()));
  normal_(z, 0, 1, generator);
  return add(mean.detach(), mul(z, std.detach()));
}

Tensor normal(const Tensor& mean, double std, Generator* generator) {
  EMBER_CHECK(mean.defined(), "normal: undefined tensor");
  check_floating(mean, "normal");
  Tensor out = empty_like(mean);
  normal_(out, 0, std, generator);
  return add(out, mean.detach());
}

Tensor normal(double mean, const Tensor& std, Generator* generator) {
  EMBER_CHECK(std.defined(), "normal: undefined tensor");
  check_floating(std, "normal");
  EMBER_CHECK(all(ge(std, 0)).item<bool>(), "normal expects all elements of std >= 0.0");
  Tensor z = empty_like(std);
  normal_(z, 0, 1, generator);
  return add(mul(z, std.detach()), mean);
}

Tensor normal(double mean, double std, const IntList& size, Generator* generator, TensorOptions options) {
  Tensor out = empty_floating(size, options, "normal");
  normal_(out, mean, std, generator);
  return finish_factory(out, options);
}

// ---- factories (declared in ember/ops/factories.h) ----------------------------------

Tensor rand(const IntList& sizes, Generator* generator, TensorOptions options) {
  Tensor out = empty_floating(sizes, options, "rand");
  uniform_(out, 0, 1, generator);
  return finish_factory(out, options);
}

Tensor randn(const IntList& sizes, Generator* generator, TensorOptions options) {
  Tensor out = empty_floating(sizes, options, "randn");
  normal_(out, 0, 1, generator);
  return finish_factory(out, options);
}

Tensor randint(int64_t low, int64_t high, const IntList& sizes, Generator* generator,
               TensorOptions options) {
  EMBER_CHECK(low < high, "randint: random_ expects 'from' to be less than 'to', but got from=",
              low, " >= to=", high);
  Tensor out = empty(sizes, options.dtype(options.dtype_or(kInt64)).requires_grad(false));
  random_(out, low, std::optional<int64_t>(high), generator);
  return finish_factory(out, options);
}

Tensor randint(int64_t high, const IntList& sizes, Generator* generator, TensorOptions options) {
  return randint(0, high, sizes, generator, options);
}

Tensor randperm(int64_t n, Generator* generator, TensorOptions options) {
  EMBER_CHECK(n >= 0, "randperm: n must be non-negative, got ", n);
  Tensor out = empty(IntList{n}, options.dtype(options.dtype_or(kInt64)).requires_grad(false));
  return run_random(out, RandpermArgs{}, generator);
}

Tensor rand(const IntList& sizes, TensorOptions options) { return rand(sizes, nullptr, options); }
Tensor randn(const IntList& sizes, TensorOptions options) { return randn(sizes, nullptr, options); }
Tensor randint(int64_t low, int64_t high, const IntList& sizes, TensorOptions options) {
  return randint(low, high, sizes, nullptr, options);
}
Tensor randint(int64_t high, const IntList& sizes, TensorOptions options) {
  return randint(0, high, sizes, nullptr, options);
}
Tensor randperm(int64_t n, TensorOptions options) { return randperm(n, nullptr, options); }

// ---- Tensor methods -----------------------------------------------------------------

Tensor& Tensor::uniform_(double from, double to, Generator* g) { return ember::uniform_(*this, from, to, g); }
Tensor& Tensor::normal_(double mean, double std, Generator* g) { return ember::normal_(*this, mean, std, g); }
Tensor& Tensor::random_(Generator* g) { return ember::random_(*this, g); }
Tensor& Tensor::random_(int64_t to, Generator* g) { return ember::random_(*this, to, g); }
Tensor& Tensor::random_(int64_t from, std::optional<int64_t> to, Generator* g) {
  return ember::random_(*this, from, to, g);
}
Tensor& Tensor::bernoulli_(double p, Generator* g) { return ember::bernoulli_(*this, p, g); }
Tensor& Tensor::bernoulli_(const Tensor& p, Generator* g) { return ember::bernoulli_(*this, p, g); }
Tensor Tensor::bernoulli(Generator* g) const { return ember::bernoulli(*this, g); }
Tensor Tensor::bernoulli(double p, Generator* g) const { return ember::bernoulli(*this, p, g); }

}  // namespace ember
