// The in-place view ops (t_, transpose_, squeeze_, unsqueeze_, as_strided_, ...), which
// change a tensor's geometry rather than its elements; resize_; and unfold, a view.
//
// An in-place view op makes the out-of-place view first (every check and the autograd
// node come from it), then gives self that view's geometry and history
// (autograd::adopt_view), so a bad call leaves self as it was. Saved tensors see the
// change through the version counter, as after any in-place op.
#include <algorithm>

#include "autograd/view_tracking.h"
#include "ember/autograd.h"
#include "ember/ops/factories.h"
#include "ember/ops/tensor_api.h"
#include "ember/ops/views.h"

namespace ember {

namespace {

Tensor& become(Tensor& self, const Tensor& view, const char* op) {
  if (is_grad_enabled()) autograd::check_inplace(self, op);
  autograd::adopt_view(self, view);
  self.bump_version();
  return self;
}

void check_defined(const Tensor& self, const char* op) {
  EMBER_CHECK(self.defined(), op, ": undefined tensor");
}

}  // namespace

Tensor& t_(Tensor& self) {
  check_defined(self, "t_");
  return become(self, t(self), "t_");
}

Tensor& transpose_(Tensor& self, int64_t d0, int64_t d1) {
  check_defined(self, "transpose_");
  return become(self, transpose(self, d0, d1), "transpose_");
}

Tensor& squeeze_(Tensor& self) {
  check_defined(self, "squeeze_");
  return become(self, squeeze(self), "squeeze_");
}

Tensor& squeeze_(Tensor& self, int64_t dim) {
  check_defined(self, "squeeze_");
  return become(self, squeeze(self, dim), "squeeze_");
}

Tensor& squeeze_(Tensor& self, const IntList& dims) {
  check_defined(self, "squeeze_");
  return become(self, squeeze_dims(self, dims), "squeeze_");
}

Tensor& unsqueeze_(Tensor& self, int64_t dim) {
  check_defined(self, "unsqueeze_");
  return become(self, unsqueeze(self, dim), "unsqueeze_");
}

Tensor& as_strided_(Tensor& self, const IntList& sizes, const IntList& strides,
                    std::optional<int64_t> storage_offset) {
  check_defined(self, "as_strided_");
  return become(self, as_strided(self, sizes, strides, storage_offset), "as_strided_");
}

Tensor unfold(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  check_defined(self, "unfold");
  // A 0-d tensor unfolds as if it had one element along dim 0 (PyTorch's rule).
  const int64_t ndim = self.dim();
  int64_t d = wrap_dim(dimension, std::max<int64_t>(ndim, 1), "unfold");
  int64_t extent = ndim == 0 ? 1 : self.size(d);
  int64_t stride = ndim == 0 ? 1 : self.stride(d);
  EMBER_CHECK(size <= extent, "maximum size for tensor at dimension ", d, " is ", extent,
              " but size is ", size);
  EMBER_CHECK(size >= 0, "size is ", size, " but must be >= 0");
  EMBER_CHECK(step > 0, "step is ", step, " but must be > 0");
  IntList sizes(self.sizes().begin(), self.sizes().end());
  IntList strides(self.strides().begin(), self.strides().end());
  if (ndim > 0) {
    sizes[d] = (extent - size) / step + 1;
    strides[d] = stride * step;
  }
  sizes.push_back(size);
  strides.push_back(stride);
  return as_strided(self, sizes, strides, self.storage_offset());
}

Tensor& resize_(Tensor& self, const IntList& sizes) {
  check_defined(self, "resize_");
  EMBER_CHECK(!self.requires_grad(), "cannot resize variables that require grad");
  int64_t numel = 1;
  for (int64_t s : sizes) {
    EMBER_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ",
                shape_str(DimVector(sizes.begin(), sizes.end())));
    numel *= s;
  }
  const int64_t itemsize = self.element_size();
  const size_t needed = static_cast<size_t>((self.storage_offset() + numel) * itemsize);
  Storage& storage = *self.impl()->storage();
  if (needed > storage.nbytes()) {
    // Grow: a new block with the old bytes at its start, swapped into the same storage
    // so that every tensor viewing it sees the new memory (the new tail is uninitialized).
    Tensor grown = empty(IntList{static_cast<int64_t>(needed)},
                         TensorOptions(kUInt8).device(self.device()));
    if (storage.nbytes() > 0) {
      Tensor old_bytes(make_intrusive<TensorImpl>(
          self.impl()->storage(), 0, DimVector{static_cast<int64_t>(storage.nbytes())},
          DimVector{1}, kUInt8));
      narrow(grown, 0, 0, static_cast<int64_t>(storage.nbytes())).copy_(old_bytes);
    }
    storage.swap_memory(*grown.impl()->storage());
  }
  DimVector new_sizes(sizes.begin(), sizes.end());
  self.impl()->set_geometry(new_sizes, contiguous_strides(new_sizes), self.storage_offset());
  self.bump_version();
  return self;
}

Tensor& resize_as_(Tensor& self, const Tensor& other) {
  check_defined(other, "resize_as_");
  return resize_(self, IntList(other.sizes().begin(), other.sizes().end()));
}

Tensor& Tensor::t_() { return ember::t_(*this); }
Tensor& Tensor::transpose_(int64_t d0, int64_t d1) { return ember::transpose_(*this, d0, d1); }
Tensor& Tensor::squeeze_() { return ember::squeeze_(*this); }
Tensor& Tensor::squeeze_(int64_t dim) { return ember::squeeze_(*this, dim); }
Tensor& Tensor::unsqueeze_(int64_t dim) { return ember::unsqueeze_(*this, dim); }
Tensor& Tensor::as_strided_(const IntList& sizes, const IntList& strides,
                            std::optional<int64_t> storage_offset) {
  return ember::as_strided_(*this, sizes, strides, storage_offset);
}
Tensor Tensor::unfold(int64_t dimension, int64_t size, int64_t step) const {
  return ember::unfold(*this, dimension, size, step);
}
Tensor& Tensor::resize_(const IntList& sizes) { return ember::resize_(*this, sizes); }
Tensor& Tensor::resize_as_(const Tensor& other) { return ember::resize_as_(*this, other); }

}  // namespace ember
