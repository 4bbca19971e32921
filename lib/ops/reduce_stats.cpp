// Op functions of the statistical reductions: var, std, var_mean, std_mean,
// norm and logsumexp.
#include <cmath>

#include "dispatch/args/reduce.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"
#include "ember/ops/reduce.h"
#include "ember/ops/views.h"
#include "ops/reduce_args.h"

namespace ember {

namespace {

using reduce::normalize_dims;

// The checked call of var, std, var_mean or std_mean (one or two outputs).
// Args: VarArgs, StdArgs, VarMeanArgs or StdMeanArgs.
template <typename Args>
OpCall moments_call(const Tensor& self, const IntList& dim, double correction, bool keepdim,
                    const char* name) {
  DimVector dims = normalize_dims(self, dim, name);
  EMBER_CHECK_AS(NotImplementedError, is_floating(self.dtype()), name,
                 "(): std and var only support floating point and complex dtypes, got ",
                 dtype_name(self.dtype()));
  OpCall call(Args::op, {self}, Args{.dim = dims, .correction = correction, .keepdim = keepdim}.attrs());
  dispatch(call);
  return call;
}

}  // namespace

Tensor var(const Tensor& self, const IntList& dim, double correction, bool keepdim) {
  return moments_call<VarArgs>(self, dim, correction, keepdim, "var").outputs[0];
}
Tensor std(const Tensor& self, const IntList& dim, double correction, bool keepdim) {
  return moments_call<StdArgs>(self, dim, correction, keepdim, "std").outputs[0];
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, const IntList& dim, double correction,
                                    bool keepdim) {
  OpCall call = moments_call<VarMeanArgs>(self, dim, correction, keepdim, "var_mean");
  return {call.outputs[0], call.outputs[1]};
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, const IntList& dim, double correction,
                                    bool keepdim) {
  OpCall call = moments_call<StdMeanArgs>(self, dim, correction, keepdim, "std_mean");
  return {call.outputs[0], call.outputs[1]};
}

Tensor norm(const Tensor& self, double p, const IntList& dim, bool keepdim, std::optional<DType> dtype) {
  DimVector dims = normalize_dims(self, dim, "norm");
  EMBER_CHECK_AS(NotImplementedError, is_floating(self.dtype()),
                 "norm: Expected a floating point tensor as input. Got ", scalar_type_name(self.dtype()));
  if (dtype) {
    EMBER_CHECK(is_floating(*dtype), "norm: dtype should be floating point, but got ", dtype_name(*dtype));
    EMBER_CHECK(promote_types(self.dtype(), *dtype) == *dtype, "norm: the dtype of the input (",
                dtype_name(self.dtype()), ") should be convertible without narrowing to the specified dtype (",
                dtype_name(*dtype), ")");
  }
  EMBER_CHECK(!std::isnan(p), "norm: the order p must not be nan");
  if (std::isinf(p) && self.numel() == 0) {  // max/min of |x| have no identity
    const char* which = p > 0 ? "inf" : "-inf";
    EMBER_CHECK(!dim.empty(), "norm: cannot compute the ", which,
                " norm on an empty tensor because the operation does not have an identity");
    for (int64_t d : dims)
      EMBER_CHECK(self.size(d) != 0, "norm: cannot compute the ", which, " norm on the dimension ", d,
                  " because this dimension is empty and the operation does not have an identity");
  }
  return reduce::run(opid::norm, self,
                     NormArgs{.p = p, .dim = dims, .keepdim = keepdim, .dtype = dtype.value_or(self.dtype())}
                         .attrs());
}

Tensor norm(const Tensor& self, const std::string& p, const IntList& dim, bool keepdim,
            std::optional<DType> dtype) {
  if (p == "nuc")
    throw NotImplementedError("norm: the nuclear norm (p='nuc') is not supported");
  EMBER_CHECK(p == "fro", "norm: order '", p, "' is not supported (expected a number, 'fro' or 'nuc')");
  EMBER_CHECK(dim.size() <= 2, "norm: p='fro' needs at most 2 dims (a matrix norm), got ", dim.size());
  return norm(self, 2.0, dim, keepdim, dtype);
}

Tensor logsumexp(const Tensor& self, const IntList& dim, bool keepdim) {
  DimVector dims = normalize_dims(self, dim, "logsumexp");
  // Integers and bool compute in the default float dtype, as in PyTorch.
  Tensor x = is_floating(self.dtype()) ? self : to(self, std::nullopt, default_dtype());
  return reduce::run(opid::logsumexp, x, LogsumexpArgs{.dim = dims, .keepdim = keepdim}.attrs());
}

}  // namespace ember
