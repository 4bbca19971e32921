// searchsorted and bucketize (argument checks, then the searchsorted op: one binary
// search per value, lib/kernels/binary_search.h), histc and bincount (composites).
#include <cmath>

#include "dispatch/args/shape_index.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"
#include "dispatch/op_ids/shape_index.h"
#include "ember/autograd.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/statistics.h"
#include "ember/ops/views.h"

namespace ember {

namespace {

bool right_side(bool right, const std::optional<std::string>& side) {
  if (!side) return right;
  EMBER_CHECK(*side == "left" || *side == "right",
              "torch.searchsorted(): side can only be 'left' or 'right' but got ", *side);
  EMBER_CHECK(!right || *side == "right",
              "torch.searchsorted(): side and right can't be set to opposites, got side of ", *side,
              " while right was True");
  return *side == "right";
}

bool leading_dims_match(const Tensor& seq, const Tensor& values) {
  if (seq.dim() != values.dim()) return false;
  for (int64_t d = 0; d + 1 < seq.dim(); ++d)
    if (seq.size(d) != values.size(d)) return false;
  return true;
}

// One binary search per value (kernels: lib/cpu/searchsorted.cpp,
// lib/cuda/sort/searchsorted.cu), both operands in their promoted dtype.
Tensor search(const Tensor& seq, const Tensor& values, bool right, bool out_int32) {
  const DType common = result_type({&seq, &values});
  OpCall call(opid::searchsorted,
              {seq.to(common).contiguous(), values.to(common).contiguous()},
              SearchsortedArgs{.right = right, .out_int32 = out_int32}.attrs());
  return dispatch_one(call);
}

}  // namespace

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32, bool right,
                    const std::optional<std::string>& side, const Tensor& sorter) {
  bool r = right_side(right, side);
  Tensor seq = sorted_sequence;
  if (sorter.defined()) {
    EMBER_CHECK(sorter.sizes() == seq.sizes(),
                "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor ",
                shape_str(seq.sizes()), "and got sorter tensor ", shape_str(sorter.sizes()));
    EMBER_CHECK(sorter.dtype() == DType::Int64,
                "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype ",
                scalar_type_name(sorter.dtype()));
  }
  EMBER_CHECK(values.dim() > 0 || seq.dim() == 1,
              "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, "
              "but we got boundaries tensor dim(", seq.dim(), ") and input value's dim(", values.dim(),
              ") numel(", values.numel(), ")");
  EMBER_CHECK(seq.dim() != 0,
              "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
  EMBER_CHECK(seq.dim() == 1 || leading_dims_match(seq, values),
              "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
              "boundaries tensor and input value tensor must match, but we got boundaries tensor ",
              shape_str(seq.sizes()), " and input value tensor ", shape_str(values.sizes()));
  if (sorter.defined()) seq = gather(seq, -1, sorter);
  return search(seq, values, r, out_int32);
}

Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& value, bool out_int32, bool right,
                    const std::optional<std::string>& side, const Tensor& sorter) {
  Tensor v = to(wrapped_scalar(value), sorted_sequence.device(), std::nullopt);
  return searchsorted(sorted_sequence, v, out_int32, right, side, sorter);
}

Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(",
              boundaries.dim(), ")");
  return searchsorted(boundaries, input, out_int32, right);
}

Tensor bucketize(const Scalar& input, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(",
              boundaries.dim(), ")");
  return searchsorted(boundaries, input, out_int32, right);
}

Tensor histc(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  EMBER_CHECK_AS(NotImplementedError, is_floating(self.dtype()), "\"histogram_cpu\" not implemented for '",
                 scalar_type_name(self.dtype()), "'");
  EMBER_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  AutoGradMode no_grad(false);
  double lo = min.to_double(), hi = max.to_double();
  EMBER_CHECK(lo <= hi, "torch.histc: max must be larger than min");
  if (lo == hi && self.numel() > 0) {
    auto [mn, mx] = aminmax(self.to(DType::Float64));
    lo = mn.item<double>();
    hi = mx.item<double>();
  }
  EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histc: range of [", lo, ", ", hi,
              "] is not finite");
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  Tensor x = reshape(self, {-1});
  Tensor inside = logical_and(ge(x, Scalar(lo)), le(x, Scalar(hi)));
  Tensor xs = masked_select(x, inside);
  Tensor pos = ((xs - Scalar(lo)) * Scalar(static_cast<double>(bins)) / Scalar(hi - lo)).to(DType::Int64);
  pos = clamp_max(pos, Scalar(bins - 1));  // the right edge belongs to the last bin
  Tensor out = zeros({bins}, TensorOptions(self.dtype()).device(self.device()));
  return index_add(out, 0, pos, ones_like(xs));
}

Tensor bincount(const Tensor& self, const Tensor& weights, int64_t minlength) {
  EMBER_CHECK_AS(NotImplementedError, is_integral(self.dtype()), "\"bincount_cpu\" not implemented for '",
                 scalar_type_name(self.dtype()), "'");
  EMBER_CHECK(minlength >= 0, "minlength should be >= 0");
  EMBER_CHECK(self.dim() == 1, "bincount only supports 1-d non-negative integral inputs.");
  if (weights.defined())
    EMBER_CHECK(weights.dim() == 1 && weights.size(0) == self.size(0),
                "weights should be 1-d and have the same length as input");
  int64_t length = minlength;
  if (self.numel() > 0) {
    auto [mn, mx] = aminmax(self);
    EMBER_CHECK(mn.item<int64_t>() >= 0, "bincount only supports 1-d non-negative integral inputs.");
    length = std::max(length, mx.item<int64_t>() + 1);
  }
  TensorOptions opts = TensorOptions(DType::Int64).device(self.device());
  if (!weights.defined()) return index_add(zeros({length}, opts), 0, self, ones_like(self, opts));
  DType out_dtype = weights.dtype() == DType::Float32 ? DType::Float32 : DType::Float64;
  AutoGradMode no_grad(false);
  return index_add(zeros({length}, opts.dtype(out_dtype)), 0, self, weights.to(out_dtype));
}

}  // namespace ember
