// The derivative row of as_strided (PyTorch's as_strided_backward). It is also
// the grad_fn of a view whose base was changed in place (view_tracking.cpp).
//
// as_strided reads elements of a storage by the output's geometry, so its
// gradient is scattered into a buffer shaped like that storage by the output's
// geometry (added up where output elements share memory), then read back by
// the input's geometry. Where input elements share memory (an expanded input),
// each storage element's gradient is divided by how many input elements read
// it, since the input's own backward (expand's sum) adds them up again.
#include <algorithm>

#include "autograd/derivatives.h"
#include "autograd/strided_geometry.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"
#include "dispatch/args/core.h"
#include "dispatch/op_ids/core.h"

namespace ember::autograd {
namespace {

IntList to_list(const DimVector& v) { return IntList(v.begin(), v.end()); }

// The dims that move through memory: size-1 dims dropped.
void moving_dims(const DimVector& sizes, const DimVector& strides, DimVector& s, DimVector& st) {
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] != 1) {
      s.push_back(sizes[d]);
      st.push_back(strides[d]);
    }
}

bool has_zero(const DimVector& v) { return std::find(v.begin(), v.end(), 0) != v.end(); }

Tensor as_strided_backward(Tensor grad, const DimVector& in_sizes, const DimVector& in_strides,
                           int64_t in_offset, const DimVector& sizes, const DimVector& strides,
                           int64_t offset) {
  TensorOptions opts = TensorOptions(grad.dtype()).device(grad.device());
  if (has_zero(sizes) || has_zero(in_sizes)) return zeros(to_list(in_sizes), opts);
  // Output geometry: an expanded dim (stride 0) reads one element many times.
  DimVector out_sizes, out_strides;
  for (int64_t d = grad.dim() - 1; d >= 0; --d) {
    if (sizes[d] == 1) continue;
    if (strides[d] == 0) {
      grad = sum(grad, IntList{d}, /*keepdim=*/true);
    } else {
      out_sizes.insert(out_sizes.begin(), sizes[d]);
      out_strides.insert(out_strides.begin(), strides[d]);
    }
  }
  grad = reshape(grad, to_list(out_sizes));
  DimVector inp_sizes, inp_strides;
  moving_dims(in_sizes, in_strides, inp_sizes, inp_strides);
  bool out_overlaps = maybe_overlapping_memory(out_sizes, out_strides);
  bool in_overlaps = maybe_overlapping_memory(inp_sizes, inp_strides);

  int64_t origin = std::min(in_offset, offset);
  int64_t in_off = in_offset - origin, out_off = offset - origin;
  int64_t span = std::max(storage_extent(inp_sizes, inp_strides, in_off),
                          storage_extent(out_sizes, out_strides, out_off));
  Tensor storage = zeros({span}, opts);
  Tensor positions;  // storage index of every element, to scatter by
  if (out_overlaps || in_overlaps) positions = arange(span, TensorOptions(kInt64).device(grad.device()));
  if (out_overlaps) {
    Tensor idx = as_strided(positions, to_list(out_sizes), to_list(out_strides), out_off);
    storage = index_add(storage, 0, reshape(idx, {-1}), reshape(grad, {-1}));
  } else {
    as_strided(storage, to_list(out_sizes), to_list(out_strides), out_off).copy_(grad);
  }
  if (in_overlaps) {
    Tensor idx = reshape(as_strided(positions, to_list(inp_sizes), to_list(inp_strides), in_off), {-1});
    Tensor count = index_add(zeros({span}, opts), 0, idx, ones({1}, opts).expand(to_list(idx.sizes())));
    storage = storage / count;  // nan where the input reads nothing: never read back
  }
  return as_strided(storage, to_list(in_sizes), to_list(in_strides), in_off);
}

EMBER_VIEW_DERIVATIVE(as_strided, {
  const AsStridedArgs a = AsStridedArgs::from(ctx);
  return {as_strided_backward(ctx.grad(0), ctx.input_sizes(0), ctx.input_strides(0),
                              ctx.input_storage_offset(0), a.size, a.stride, a.storage_offset)};
});

}  // namespace
}  // namespace ember::autograd
