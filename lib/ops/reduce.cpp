// Op functions of the plain reductions: argument checks and dtype rules as in
// PyTorch, then one dispatched call (rows in lib/dispatch/schema/reduce.toml).
#include "ember/ops/reduce.h"

#include "dispatch/args/reduce.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"
#include "ops/reduce_args.h"

namespace ember {

namespace reduce {

DimVector normalize_dims(const Tensor& self, const IntList& dims, const char* op) {
  EMBER_CHECK(self.defined(), op, ": undefined tensor");
  DimVector out;
  if (dims.empty()) {
    for (int64_t d = 0; d < self.dim(); ++d) out.push_back(d);
    return out;
  }
  for (int64_t d : dims) out.push_back(wrap_dim(d, self.dim(), op));
  std::sort(out.begin(), out.end());
  for (size_t i = 1; i < out.size(); ++i)
    EMBER_CHECK(out[i] != out[i - 1], op, ": dim ", out[i], " appears multiple times in the list of dims");
  if (self.dim() == 0) out.clear();  // dim 0 / -1 of a 0-dim tensor: nothing to reduce
  return out;
}

int64_t normalize_dim(const Tensor& self, int64_t dim, const char* op) {
  EMBER_CHECK(self.defined(), op, ": undefined tensor");
  return wrap_dim(dim, self.dim(), op);
}

Tensor run(OpId op, const Tensor& self, SmallVector<Attr, 4> attrs) {
  OpCall call(op, {self}, std::move(attrs));
  return dispatch_one(call);
}

}  // namespace reduce

namespace {

using reduce::normalize_dim;
using reduce::normalize_dims;
using reduce::run;

// sum and prod: integers and bool accumulate into int64 unless dtype is given.
DType sum_dtype(const Tensor& self, std::optional<DType> dtype) {
  if (dtype) return *dtype;
  return is_integral(self.dtype(), true) ? kInt64 : self.dtype();
}

DType mean_dtype(const Tensor& self, std::optional<DType> dtype) {
  DType t = dtype.value_or(self.dtype());
  EMBER_CHECK_AS(NotImplementedError, is_floating(t),
                 "mean(): could not infer output dtype. ", dtype ? "Optional" : "Input",
                 " dtype must be either a floating point or complex dtype. Got: ", scalar_type_name(t));
  return t;
}

// Reductions without an identity (max, amax, argmax, ...) reject empty ranges.
void check_nonempty_dims(const Tensor& self, const DimVector& dims, bool dims_given, const char* op) {
  if (self.numel() != 0) return;
  EMBER_CHECK(dims_given && self.dim() > 0, op,
              "(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
              "reduction dim with the 'dim' argument.");
  for (int64_t d : dims)
    EMBER_CHECK_INDEX(self.size(d) != 0, op, "(): Expected reduction dim ", d,
                      " to have non-zero size.");
}

// Args: MaxDimArgs or MinDimArgs.
template <typename Args>
std::tuple<Tensor, Tensor> max_min_dim(const Tensor& self, int64_t dim, bool keepdim, const char* name) {
  int64_t d = normalize_dim(self, dim, name);
  if (self.dim() > 0) check_nonempty_dims(self, {d}, true, name);
  OpCall call(Args::op, {self}, Args{.dim = d, .keepdim = keepdim}.attrs());
  dispatch(call);
  return {call.outputs[0], call.outputs[1]};
}

// Args: ArgmaxArgs or ArgminArgs.
template <typename Args>
Tensor arg_max_min(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const char* name) {
  EMBER_CHECK(self.defined(), name, ": undefined tensor");
  EMBER_CHECK_AS(NotImplementedError, self.dtype() != kBool, name, "(): does not support bool input");
  if (dim) {
    dim = normalize_dim(self, *dim, name);
    if (self.dim() > 0) check_nonempty_dims(self, {*dim}, true, name);
  } else {
    EMBER_CHECK_INDEX(self.numel() != 0, name,
                      "(): Expected reduction dim to be specified for input.numel() == 0.");
  }
  return run(Args::op, self, Args{.dim = dim, .keepdim = keepdim}.attrs());
}

}  // namespace

Tensor sum(const Tensor& self, std::optional<DType> dtype) { return sum(self, IntList{}, false, dtype); }
Tensor sum(const Tensor& self, const IntList& dim, bool keepdim, std::optional<DType> dtype) {
  DimVector dims = normalize_dims(self, dim, "sum");
  return run(opid::sum, self,
             SumArgs{.dim = dims, .keepdim = keepdim, .dtype = sum_dtype(self, dtype)}.attrs());
}

Tensor mean(const Tensor& self, std::optional<DType> dtype) { return mean(self, IntList{}, false, dtype); }
Tensor mean(const Tensor& self, const IntList& dim, bool keepdim, std::optional<DType> dtype) {
  DimVector dims = normalize_dims(self, dim, "mean");
  return run(opid::mean, self,
             MeanArgs{.dim = dims, .keepdim = keepdim, .dtype = mean_dtype(self, dtype)}.attrs());
}

Tensor prod(const Tensor& self, std::optional<DType> dtype) { return prod(self, IntList{}, false, dtype); }
Tensor prod(const Tensor& self, const IntList& dim, bool keepdim, std::optional<DType> dtype) {
  DimVector dims = normalize_dims(self, dim, "prod");
  return run(opid::prod, self,
             ProdArgs{.dim = dims, .keepdim = keepdim, .dtype = sum_dtype(self, dtype)}.attrs());
}

namespace {
// Args: AmaxArgs or AminArgs.
template <typename Args>
Tensor amax_amin(const Tensor& self, const IntList& dim, bool keepdim, const char* name) {
  DimVector dims = normalize_dims(self, dim, name);
  check_nonempty_dims(self, dims, !dim.empty(), name);
  return run(Args::op, self, Args{.dim = dims, .keepdim = keepdim}.attrs());
}
}  // namespace

Tensor amax(const Tensor& self, const IntList& dim, bool keepdim) {
  return amax_amin<AmaxArgs>(self, dim, keepdim, "amax");
}
Tensor amin(const Tensor& self, const IntList& dim, bool keepdim) {
  return amax_amin<AminArgs>(self, dim, keepdim, "amin");
}

// max(x) is amax over every dim, with max's own message for an empty input.
Tensor max(const Tensor& self) {
  DimVector dims = normalize_dims(self, {}, "max");
  check_nonempty_dims(self, dims, false, "max");
  return run(opid::amax, self, AmaxArgs{.dim = dims, .keepdim = false}.attrs());
}
Tensor min(const Tensor& self) {
  DimVector dims = normalize_dims(self, {}, "min");
  check_nonempty_dims(self, dims, false, "min");
  return run(opid::amin, self, AminArgs{.dim = dims, .keepdim = false}.attrs());
}
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim) {
  return max_min_dim<MaxDimArgs>(self, dim, keepdim, "max");
}
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim) {
  return max_min_dim<MinDimArgs>(self, dim, keepdim, "min");
}

std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  IntList dims;
  if (dim) dims.push_back(*dim);
  DimVector nd = normalize_dims(self, dims, "aminmax");
  EMBER_CHECK(dim || self.numel() != 0, "aminmax(): cannot compute aminmax over an empty dimension "
              "as the operation has no identity.");
  check_nonempty_dims(self, nd, true, "aminmax");
  OpCall call(opid::aminmax, {self}, AminmaxArgs{.dim = nd, .keepdim = keepdim}.attrs());
  dispatch(call);
  return {call.outputs[0], call.outputs[1]};
}

Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_max_min<ArgmaxArgs>(self, dim, keepdim, "argmax");
}
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_max_min<ArgminArgs>(self, dim, keepdim, "argmin");
}

namespace {
// Args: AnyArgs or AllArgs.
template <typename Args>
Tensor any_all(const Tensor& self, const IntList& dim, bool keepdim, const char* name) {
  DimVector dims = normalize_dims(self, dim, name);
  return run(Args::op, self, Args{.dim = dims, .keepdim = keepdim}.attrs());
}
}  // namespace

Tensor any(const Tensor& self) { return any_all<AnyArgs>(self, {}, false, "any"); }
Tensor any(const Tensor& self, const IntList& dim, bool keepdim) {
  return any_all<AnyArgs>(self, dim, keepdim, "any");
}
Tensor all(const Tensor& self) { return any_all<AllArgs>(self, {}, false, "all"); }
Tensor all(const Tensor& self, const IntList& dim, bool keepdim) {
  return any_all<AllArgs>(self, dim, keepdim, "all");
}

Tensor count_nonzero(const Tensor& self, const IntList& dim) {
  DimVector dims = normalize_dims(self, dim, "count_nonzero");
  return run(opid::count_nonzero, self, CountNonzeroArgs{.dim = dims}.attrs());
}

}  // namespace ember
