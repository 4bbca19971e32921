// Tensors a kernel makes for itself, on every device: views over an existing
// storage with any geometry, and copies through the copy_ kernel of the
// destination's device (below the tracer and autograd layers).
#pragma once
#include "dispatch/args/core.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/core.h"
#include "ember/tensor.h"

namespace ember {

// A tensor over t's storage with the given geometry (strides in elements, may be
// negative or 0). Kernel-internal: users never see these views.
inline Tensor restride(const Tensor& t, DimVector sizes, DimVector strides, int64_t offset) {
  return Tensor(make_intrusive<TensorImpl>(t.impl()->storage(), offset, std::move(sizes),
                                           std::move(strides), t.dtype()));
}

// dst <- src (cast, broadcast) by the copy_ kernel of dst's device, below the
// tracer and autograd layers: a kernel's internal copy is not an op of its own.
inline void copy_into(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  OpCall call(opid::copy_, {dst, src}, CopyArgs{.non_blocking = false}.attrs());
  call.outputs.push_back(dst);
  call.device = dst.device();
  dispatch_backend(call);
}

}  // namespace ember
