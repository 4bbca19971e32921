// Tensor factories. empty() only allocates; the others dispatch a fill or a
// generating op so that they run on the tensor's device (and are traced).
#include "ember/ops/factories.h"

#include <cmath>

#include "dispatch/args/core.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/core.h"
#include "dispatch/op_ids/reduce.h"
#include "ember/ops/views.h"

namespace ember {

namespace {

void check_sizes(const DimVector& sizes, const char* op) {
  for (int64_t s : sizes)
    EMBER_CHECK(s >= 0, op, ": trying to create a tensor with negative dimension ", s, ": ",
                shape_str(sizes));
}

Tensor finish(Tensor t, const TensorOptions& options) {
  if (options.requires_grad_) {
    EMBER_CHECK(is_floating(t.dtype()), "only tensors of floating point dtype can require "
                "gradients, got ", dtype_name(t.dtype()));
    t.impl()->requires_grad = true;
  }
  return t;
}

Tensor run_inplace(OpId op, Tensor self, SmallVector<Attr, 4> attrs) {
  OpCall call(op, SmallVector<Tensor, 4>{self}, std::move(attrs));
  call.outputs.push_back(self);
  dispatch(call);
  return self;
}

DType default_for(const Scalar& v) {
  return v.is_bool() ? kBool : v.is_int() ? kInt64 : default_dtype();
}

}  // namespace

Tensor empty(const DimVector& sizes, TensorOptions options) {
  check_sizes(sizes, "empty");
  DType dt = options.dtype_or(default_dtype());
  // The byte count must stay below 2^62 as well: numel * itemsize of a huge
  // int64 shape would wrap around to a small allocation that the op then overruns.
  const int64_t max_numel = (int64_t(1) << 62) / static_cast<int64_t>(itemsize(dt));
  int64_t numel = 1;
  for (int64_t s : sizes) {
    EMBER_CHECK(s == 0 || numel <= max_numel / s, "empty: shape ", shape_str(sizes),
                " has too many elements");
    numel *= s;
  }
  auto storage = Storage::allocate(static_cast<size_t>(numel) * itemsize(dt), options.device_);
  return finish(Tensor(make_intrusive<TensorImpl>(std::move(storage), 0, sizes,
                                                  contiguous_strides(sizes), dt)),
                options);
}

Tensor empty(const IntList& sizes, TensorOptions options) {
  return empty(DimVector(sizes.begin(), sizes.end()), options);
}

Tensor empty(std::initializer_list<int64_t> sizes, TensorOptions options) {
  return empty(DimVector(sizes), options);
}

Tensor empty_strided(const IntList& sizes, const IntList& strides, TensorOptions options) {
  EMBER_CHECK(sizes.size() == strides.size(), "empty_strided: got ", sizes.size(), " sizes and ",
              strides.size(), " strides");
  int64_t extent = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK(sizes[i] >= 0 && strides[i] >= 0, "empty_strided: negative size or stride");
    if (sizes[i] == 0) { extent = 0; break; }
    extent += (sizes[i] - 1) * strides[i];
  }
  Tensor base = empty(IntList{extent}, options);
  return as_strided(base, sizes, strides, 0);
}

Tensor full(const IntList& sizes, const Scalar& value, TensorOptions options) {
  Tensor t = empty(sizes, options.dtype(options.dtype_or(default_for(value))).requires_grad(false));
  fill_(t, value);
  return finish(t, options);
}
Tensor zeros(const IntList& sizes, TensorOptions options) {
  return full(sizes, 0, options.dtype(options.dtype_or(default_dtype())));
}
Tensor ones(const IntList& sizes, TensorOptions options) {
  return full(sizes, 1, options.dtype(options.dtype_or(default_dtype())));
}

static TensorOptions like_options(const Tensor& like, TensorOptions options) {
  EMBER_CHECK(like.defined(), "*_like: undefined tensor");
  TensorOptions o = options.dtype(options.dtype_or(like.dtype()));
  if (options.device_ == kCPU && !like.is_cpu()) o = o.device(like.device());
  return o;
}
static IntList sizes_of(const Tensor& t) { return IntList(t.sizes().begin(), t.sizes().end()); }

Tensor empty_like(const Tensor& like, TensorOptions o) { return empty(sizes_of(like), like_options(like, o)); }
Tensor zeros_like(const Tensor& like, TensorOptions o) { return full(sizes_of(like), 0, like_options(like, o)); }
Tensor ones_like(const Tensor& like, TensorOptions o) { return full(sizes_of(like), 1, like_options(like, o)); }
Tensor full_like(const Tensor& like, const Scalar& v, TensorOptions o) {
  return full(sizes_of(like), v, like_options(like, o));
}
Tensor rand_like(const Tensor& like, TensorOptions o) { return rand(sizes_of(like), like_options(like, o)); }
Tensor randn_like(const Tensor& like, TensorOptions o) { return randn(sizes_of(like), like_options(like, o)); }

Tensor scalar_tensor(const Scalar& value, TensorOptions options) {
  return full({}, value, options);
}

Tensor wrapped_scalar(const Scalar& value) {
  // The value is stored directly rather than by a dispatched fill_: every Python
  // number in `x * 2.0` becomes one of these, and a fill op cost more than the multiply.
  Tensor t = empty({}, TensorOptions(value.dtype()));
  void* p = t.data_ptr();
  if (value.is_bool()) *static_cast<bool*>(p) = value.to_bool();
  else if (value.is_int()) *static_cast<int64_t*>(p) = value.to_int();
  else *static_cast<double*>(p) = value.to_double();
  t.impl()->is_wrapped_number = true;
  return t;
}

Tensor arange(const Scalar& end, TensorOptions options) { return arange(0, end, 1, options); }

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, TensorOptions options) {
  bool all_int = !start.is_float() && !end.is_float() && !step.is_float();
  DType dt = options.dtype_or(all_int ? kInt64 : default_dtype());
  double s = start.to_double(), e = end.to_double(), st = step.to_double();
  EMBER_CHECK(std::isfinite(s) && std::isfinite(e), "arange: unsupported range: ", s, " -> ", e);
  EMBER_CHECK(st != 0, "arange: step must be nonzero");
  EMBER_CHECK((st > 0 && e >= s) || (st < 0 && e <= s),
              "arange: upper bound and larger bound inconsistent with step sign");
  int64_t n = all_int ? (end.to_int() - start.to_int() + step.to_int() - (step.to_int() > 0 ? 1 : -1)) / step.to_int()
                      : static_cast<int64_t>(std::ceil((e - s) / st));
  Tensor out = empty(IntList{std::max<int64_t>(n, 0)}, options.dtype(dt).requires_grad(false));
  run_inplace(opid::arange, out, ArangeArgs{.start = start, .step = step}.attrs());
  return finish(out, options);
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions options) {
  EMBER_CHECK(steps >= 0, "linspace: number of steps must be non-negative, got ", steps);
  Tensor out = empty(IntList{steps}, options.dtype(options.dtype_or(default_dtype())).requires_grad(false));
  run_inplace(opid::linspace, out, LinspaceArgs{.start = start, .end = end}.attrs());
  return finish(out, options);
}

Tensor eye(int64_t n, std::optional<int64_t> m, TensorOptions options) {
  int64_t cols = m.value_or(n);
  EMBER_CHECK(n >= 0 && cols >= 0, "eye: n and m must be non-negative, got ", n, " and ", cols);
  Tensor out = empty(IntList{n, cols}, options.dtype(options.dtype_or(default_dtype())).requires_grad(false));
  run_inplace(opid::eye, out, {});
  return finish(out, options);
}

// rand, randn, randint and randperm are in random.cpp.

template <typename T>
Tensor from_vector(const std::vector<T>& values, const IntList& sizes, TensorOptions options) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  EMBER_CHECK(numel == static_cast<int64_t>(values.size()), "from_vector: ", values.size(),
              " values do not fill a tensor of shape ", shape_str(DimVector(sizes.begin(), sizes.end())));
  Tensor src = empty(sizes, TensorOptions(dtype_of<T>::value));
  if (numel) std::copy(values.begin(), values.end(), src.data_ptr<T>());
  return finish(to(src, options.device_, options.dtype_or(dtype_of<T>::value)), options);
}

template <typename T>
Tensor tensor(std::initializer_list<T> values, TensorOptions options) {
  return from_vector(std::vector<T>(values), IntList{static_cast<int64_t>(values.size())}, options);
}

#define EMBER_INSTANTIATE_FROM(T)                                                          \
  template Tensor from_vector<T>(const std::vector<T>&, const IntList&, TensorOptions);   \
  template Tensor tensor<T>(std::initializer_list<T>, TensorOptions);
EMBER_INSTANTIATE_FROM(uint8_t)
EMBER_INSTANTIATE_FROM(int8_t)
EMBER_INSTANTIATE_FROM(int16_t)
EMBER_INSTANTIATE_FROM(int32_t)
EMBER_INSTANTIATE_FROM(int64_t)
EMBER_INSTANTIATE_FROM(float)
EMBER_INSTANTIATE_FROM(double)
#undef EMBER_INSTANTIATE_FROM

}  // namespace ember
