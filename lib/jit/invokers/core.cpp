// The hand-written invokers of the core group: the rows the generator cannot
// express (invoker = "manual" in lib/dispatch/schema/core.toml): copies and fills
// that may write into a fresh output, factories (their lengths are the traced
// output's), random samplers (the traced seed and offset are not reused) and
// squeeze (one public call per dim). The other views (view, as_strided, transpose,
// permute, expand, unsqueeze, slice, select, alias) are generated from their rows
// into build/generated/jit/invokers_core.cpp (lib/dispatch/codegen/gen_ops.py). The
// view backward helpers (slice_backward, select_backward) have none: they cannot
// be traced.
#include <algorithm>
#include <limits>

#include "ember/ops/factories.h"
#include "ember/ops/random.h"
#include "ember/ops/views.h"
#include "jit/invokers/invoke_util.h"
#include "jit/passes.h"
#include "dispatch/op_ids/core.h"

namespace ember::jit {

namespace {

// A factory node's result: the traced output's dtype, on the graph's device.
TensorOptions traced_options(const InvokeArgs& a) {
  return TensorOptions(a.traced_output(0).dtype).device(a.device());
}

// The traced sizes of a factory's output, which must have `rank` dims: arange,
// linspace, randperm and eye carry their lengths only there.
const DimVector& traced_sizes(const InvokeArgs& a, size_t rank) {
  const DimVector& sizes = a.output_sizes(0);
  if (sizes.size() != rank)
    a.fail(detail::str("the traced output must have ", rank, " dims, got ", sizes.size()));
  return sizes;
}

// The end that makes the public arange(start, end, step) give n elements (the
// node holds start and step only; its length is the traced output's).
Scalar arange_end(const InvokeArgs& a, const Scalar& start, const Scalar& step, int64_t n) {
  if (n == 0) return start;
  if (!start.is_float() && !step.is_float()) {
    int64_t span = 0, end = 0;
    if (__builtin_mul_overflow(n, step.to_int(), &span) ||
        __builtin_add_overflow(start.to_int(), span, &end))
      a.fail("arange: the range overflows int64");
    return Scalar(end);  // (end - start + step - sign) / step == n
  }
  // Half a step short of n steps: ceil((end - start) / step) is n, clear of rounding.
  return Scalar(start.to_double() + (static_cast<double>(n) - 0.5) * step.to_double());
}

// Integers in [from, from + span): random_'s attrs, span an uint64 bit pattern
// (0 standing for 2^64), passed back through the public random_(from, to).
Tensor& run_random_(const InvokeArgs& a, Tensor& self) {
  int64_t from = a.integer(0);
  uint64_t span = static_cast<uint64_t>(a.integer(1));
  int64_t hi = static_cast<int64_t>(static_cast<uint64_t>(from) + span - 1);  // inclusive
  if (hi < from) a.fail("random_: the range [from, from + span) wraps around int64");
  if (hi < std::numeric_limits<int64_t>::max()) return random_(self, from, std::optional<int64_t>(hi + 1));
  // Up to int64's largest value: only int64 holds it, and to = None asks for it.
  if (self.dtype() != kInt64)
    a.fail(detail::str("random_: the range reaches 2^63 - 1, beyond ", dtype_name(self.dtype())));
  return random_(self, from, std::nullopt);
}

}  // namespace

// ---- copies and fills: in place, or into the tensor zeros()/clone()/to() allocated ----

// ---- view: what a traced flatten() or reshape() records -----------------------------

// A flatten() or reshape() of a contiguous example input traces as `view`. A run's input
// of the traced shape but other strides (a transposed tensor) cannot be viewed so; eager
// flatten/reshape would copy it, and so does the node, unless the graph writes through
// the view (its aliasing is then part of the program, and the error stands).
EMBER_REGISTER_INVOKER(view, [](const InvokeArgs& a) -> std::vector<Tensor> {
  check_out_of_place(a);
  const Tensor& self = a.tensor(0);
  IntList sizes = as_list(a.ints(0));
  try {
    return {ember::view(self, sizes)};
  } catch (const Error&) {
    ValueId out = a.node().outputs.at(0);
    if (passes_detail::written_values(a.graph())[static_cast<size_t>(out)]) throw;
    return {ember::reshape(self, sizes)};
  }
});

EMBER_REGISTER_INVOKER(copy_, [](const InvokeArgs& a) -> std::vector<Tensor> {
  const Tensor& src = a.tensor(1);
  Tensor dst;
  if (is_fresh_output(a) && a.input_sizes(1) == a.output_sizes(0)) {
    // x.clone(), x.to(dtype), x.contiguous(): the copy takes the shape of the
    // input it is given, not the traced one (which would broadcast a smaller one).
    const Value& traced = a.traced_output(0);
    dst = empty(src.sizes(), TensorOptions(traced.dtype).device(a.device()));
    dst.impl()->is_wrapped_number = traced.wrapped_number;
  } else {
    dst = write_target(a);
  }
  return {copy_(dst, src, a.flag(0))};
});

EMBER_REGISTER_INVOKER(fill_, [](const InvokeArgs& a) -> std::vector<Tensor> {
  Tensor self = write_target(a);
  return {self.fill_(a.scalar(0))};
});

// ---- factories: the public function, with the traced length and dtype ----------------

EMBER_REGISTER_INVOKER(arange, [](const InvokeArgs& a) -> std::vector<Tensor> {
  expect_fresh_output(a);
  int64_t n = traced_sizes(a, 1)[0];
  Scalar start = a.scalar(0), step = a.scalar(1);
  Tensor out = arange(start, arange_end(a, start, step, n), step, traced_options(a));
  if (out.numel() != n) a.fail(detail::str("arange: gave ", out.numel(), " elements, traced ", n));
  return {out};
});

EMBER_REGISTER_INVOKER(linspace, [](const InvokeArgs& a) -> std::vector<Tensor> {
  expect_fresh_output(a);
  return {linspace(a.scalar(0), a.scalar(1), traced_sizes(a, 1)[0], traced_options(a))};
});

EMBER_REGISTER_INVOKER(eye, [](const InvokeArgs& a) -> std::vector<Tensor> {
  expect_fresh_output(a);
  const DimVector& nm = traced_sizes(a, 2);
  return {eye(nm[0], nm[1], traced_options(a))};
});

// ---- random ops. The traced seed and offset (the last two attrs) are not reused:
// each run draws fresh numbers from the default generator, as the eager call does.

EMBER_REGISTER_INVOKER(uniform_, [](const InvokeArgs& a) -> std::vector<Tensor> {
  Tensor self = write_target(a);
  return {uniform_(self, a.real(0), a.real(1))};
});

EMBER_REGISTER_INVOKER(normal_, [](const InvokeArgs& a) -> std::vector<Tensor> {
  Tensor self = write_target(a);
  return {normal_(self, a.real(0), a.real(1))};
});

EMBER_REGISTER_INVOKER(random_, [](const InvokeArgs& a) -> std::vector<Tensor> {
  Tensor self = write_target(a);
  return {run_random_(a, self)};
});

EMBER_REGISTER_INVOKER(bernoulli_, [](const InvokeArgs& a) -> std::vector<Tensor> {
  Tensor self = write_target(a);
  return {bernoulli_(self, a.real(0))};
});

EMBER_REGISTER_INVOKER(randperm, [](const InvokeArgs& a) -> std::vector<Tensor> {
  expect_fresh_output(a);
  return {randperm(traced_sizes(a, 1)[0], traced_options(a))};
});

// ---- squeeze: the public view function, so the result stays a view of the input -------

// squeeze's node lists the (wrapped) dims it drops; the public squeeze takes one
// dim at a time, so they go from the last one down, each leaving the earlier
// dims where they were.
EMBER_REGISTER_INVOKER(squeeze, [](const InvokeArgs& a) -> std::vector<Tensor> {
  DimVector dims = a.ints(0);
  std::sort(dims.begin(), dims.end());
  if (std::adjacent_find(dims.begin(), dims.end()) != dims.end())
    a.fail("squeeze: a dim appears more than once");
  Tensor out = a.tensor(0);
  if (dims.empty()) return {alias(out)};
  for (size_t i = dims.size(); i-- > 0;) out = squeeze(out, dims[i]);
  return {out};
});

}  // namespace ember::jit
