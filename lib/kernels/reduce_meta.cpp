// The reduce group's meta step (kernels/reduce_meta.h): one place that knows each
// reduction's output shape and dtype and how its kernel reads the input.
#include "kernels/reduce_meta.h"

#include "dispatch/args/reduce.h"
#include "ember/ops/factories.h"
#include "ops/reduce_args.h"

namespace ember {

using reduce::reduced_numel;
using reduce::reduced_shape;

namespace {

// Output k of c: the preset one when it is contiguous with the right shape and
// dtype, else a new tensor on the input's device (finish_output copies it back).
Tensor output_for(const OpCall& c, size_t k, const DimVector& shape, DType dtype) {
  if (k < c.outputs.size()) {
    const Tensor& o = c.outputs[k];
    if (o.sizes() == shape && o.dtype() == dtype && o.is_contiguous()) return o;
  }
  return empty(shape, TensorOptions(dtype).device(c.inputs[0].device()));
}

void finish_output(OpCall& c, size_t k, const Tensor& result) {
  if (k < c.outputs.size()) {
    if (!c.outputs[k].is_same(result)) c.outputs[k].copy_(result);
  } else {
    c.outputs.push_back(result);
  }
}

}  // namespace

void ReduceMeta::finish(OpCall& c) const {
  for (size_t k = 0; k < outputs.size(); ++k) finish_output(c, k, outputs[k]);
}

namespace {

// The input read as the output dtype, as PyTorch casts first; integers and bool
// read directly into an int64 result (the kernel widens each element).
Tensor read_as(const Tensor& self, DType out_dtype) {
  const bool direct = self.dtype() == out_dtype || (out_dtype == kInt64 && is_integral(self.dtype(), true));
  return direct ? self : self.to(out_dtype);
}

// 0-dim tensors have no dim to reduce: their one element is its own result.
DimVector one_dim(const Tensor& self, int64_t dim) { return self.dim() > 0 ? DimVector{dim} : DimVector{}; }

// x reduced over dims into `dtypes.size()` outputs of the reduced shape.
ReduceMeta reduction(const OpCall& c, Tensor x, DimVector dims, bool keepdim,
                     std::initializer_list<DType> dtypes) {
  const Tensor& self = c.in(0);
  ReduceMeta m;
  const DimVector shape = reduced_shape(self.sizes(), dims, keepdim);
  size_t k = 0;
  for (DType dt : dtypes) m.outputs.push_back(output_for(c, k++, shape, dt));
  m.n = reduced_numel(self.sizes(), dims);
  m.x = std::move(x);
  m.dims = std::move(dims);
  return m;
}

// sum, mean, prod, norm: the input cast to the result's dtype first.
template <class Args>
ReduceMeta cast_first(const OpCall& c) {
  const Args a = Args::from(c);
  return reduction(c, read_as(c.in(0), a.dtype), a.dim, a.keepdim, {a.dtype});
}

// amax, amin, logsumexp, var, std (one output of self's dtype); aminmax,
// var_mean, std_mean (two).
template <class Args>
ReduceMeta same_dtype(const OpCall& c, int outputs) {
  const Args a = Args::from(c);
  const DType dt = c.in(0).dtype();
  return outputs == 1 ? reduction(c, c.in(0), a.dim, a.keepdim, {dt})
                      : reduction(c, c.in(0), a.dim, a.keepdim, {dt, dt});
}

// max_dim, min_dim: values and indices along one dim.
template <class Args>
ReduceMeta values_indices(const OpCall& c) {
  const Args a = Args::from(c);
  return reduction(c, c.in(0), one_dim(c.in(0), a.dim), a.keepdim, {c.in(0).dtype(), kInt64});
}

// argmax, argmin: indices along one dim, or over every dim (the flat index).
template <class Args>
ReduceMeta indices_only(const OpCall& c) {
  const Args a = Args::from(c);
  const Tensor& self = c.in(0);
  if (a.dim) return reduction(c, self, one_dim(self, *a.dim), a.keepdim, {kInt64});
  DimVector all;
  for (int64_t d = 0; d < self.dim(); ++d) all.push_back(d);
  return reduction(c, self, all, a.keepdim, {kInt64});
}

// any, all: bool, or uint8 for a uint8 input (PyTorch's rule).
template <class Args>
ReduceMeta any_all(const OpCall& c) {
  const Args a = Args::from(c);
  return reduction(c, c.in(0), a.dim, a.keepdim, {c.in(0).dtype() == kUInt8 ? kUInt8 : kBool});
}

// cumsum, cumprod, softmax, log_softmax: one output of self's shape, computed
// along one dim of x (contiguous).
template <class Args>
ReduceMeta along_dim(const OpCall& c, const Args& a, const Tensor& x) {
  const Tensor& self = c.in(0);
  ReduceMeta m;
  m.outputs.push_back(output_for(c, 0, self.sizes(), a.dtype));
  m.x = x.contiguous();
  m.dims = {a.dim};
  m.n = self.dim() ? self.size(a.dim) : 1;
  return m;
}

// The scans cast first, except that integers and bool read directly into int64;
// softmax always computes in its result's (floating) dtype.
template <class Args>
ReduceMeta scan(const OpCall& c) {
  const Args a = Args::from(c);
  return along_dim(c, a, read_as(c.in(0), a.dtype));
}
template <class Args>
ReduceMeta softmax_like(const OpCall& c) {
  const Args a = Args::from(c);
  return along_dim(c, a, c.in(0).dtype() == a.dtype ? c.in(0) : c.in(0).to(a.dtype));
}

}  // namespace

ReduceMeta reduce_meta(const OpCall& c) {
  switch (c.op) {
    case opid::sum: return cast_first<SumArgs>(c);
    case opid::mean: return cast_first<MeanArgs>(c);
    case opid::prod: return cast_first<ProdArgs>(c);
    case opid::norm: return cast_first<NormArgs>(c);
    case opid::amax: return same_dtype<AmaxArgs>(c, 1);
    case opid::amin: return same_dtype<AminArgs>(c, 1);
    case opid::aminmax: return same_dtype<AminmaxArgs>(c, 2);
    case opid::logsumexp: return same_dtype<LogsumexpArgs>(c, 1);
    case opid::var: return same_dtype<VarArgs>(c, 1);
    case opid::std: return same_dtype<StdArgs>(c, 1);
    case opid::var_mean: return same_dtype<VarMeanArgs>(c, 2);
    case opid::std_mean: return same_dtype<StdMeanArgs>(c, 2);
    case opid::max_dim: return values_indices<MaxDimArgs>(c);
    case opid::min_dim: return values_indices<MinDimArgs>(c);
    case opid::argmax: return indices_only<ArgmaxArgs>(c);
    case opid::argmin: return indices_only<ArgminArgs>(c);
    case opid::any: return any_all<AnyArgs>(c);
    case opid::all: return any_all<AllArgs>(c);
    case opid::count_nonzero: {
      const CountNonzeroArgs a = CountNonzeroArgs::from(c);
      return reduction(c, c.in(0), a.dim, false, {kInt64});
    }
    case opid::cumsum: return scan<CumsumArgs>(c);
    case opid::cumprod: return scan<CumprodArgs>(c);
    case opid::softmax: return softmax_like<SoftmaxArgs>(c);
    case opid::log_softmax: return softmax_like<LogSoftmaxArgs>(c);
    default: break;
  }
  EMBER_CHECK(false, "reduce_meta: ", c.name(), " is not a reduction");
  return {};
}

}  // namespace ember
