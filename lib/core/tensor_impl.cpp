#include "ember/tensor_impl.h"

#include "ember/inference_mode.h"

namespace ember {

TensorImpl::TensorImpl(IntrusivePtr<Storage> storage, int64_t offset, DimVector sizes,
                       DimVector strides, DType dtype)
    : storage_(std::move(storage)),
      offset_(offset),
      sizes_(std::move(sizes)),
      strides_(std::move(strides)),
      dtype_(dtype) {
  is_inference = is_inference_mode_enabled();
  refresh();
}

void TensorImpl::set_geometry(DimVector sizes, DimVector strides, int64_t offset) {
  sizes_ = std::move(sizes);
  strides_ = std::move(strides);
  offset_ = offset;
  refresh();
}

void TensorImpl::set_data(const TensorImpl& src) {
  storage_ = src.storage_;
  dtype_ = src.dtype_;
  set_geometry(src.sizes_, src.strides_, src.offset_);
}

// Contiguous means row-major dense: dims of size 1 may have any stride (as in PyTorch).
void TensorImpl::refresh() {
  numel_ = 1;
  for (int64_t s : sizes_) numel_ *= s;
  is_contiguous_ = true;
  int64_t expected = 1;
  for (int64_t d = dim() - 1; d >= 0; --d) {
    if (sizes_[d] == 1) continue;
    if (strides_[d] != expected) { is_contiguous_ = false; break; }
    expected *= sizes_[d];
  }
  if (numel_ == 0) is_contiguous_ = true;
}

}  // namespace ember
