// A tensor over another's storage with a geometry of its own, made directly.
#pragma once
#include "ember/tensor.h"

namespace ember {

// A tensor over self's storage with the given sizes, strides and element offset. No
// op is dispatched, so neither autograd nor the tracer sees it: this is for the view
// kernels (which run below both layers), for reshaping inside a kernel, and for
// detach outside a trace (whose result has no history anyway).
inline Tensor make_view(const Tensor& self, DimVector sizes, DimVector strides, int64_t offset) {
  Tensor view(make_intrusive<TensorImpl>(self.impl()->storage(), offset, std::move(sizes),
                                         std::move(strides), self.dtype()));
  // A view of an inference tensor is one; a view made in inference mode of a normal
  // tensor is normal (PyTorch's rules).
  view.impl()->is_inference = self.impl()->is_inference;
  return view;
}

}  // namespace ember
