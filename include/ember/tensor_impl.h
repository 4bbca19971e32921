// TensorImpl: what a Tensor handle points to. A view of a Storage: an element
// offset, sizes and strides (in elements), a dtype, plus the autograd flags.
#pragma once
#include <memory>

#include "ember/dtype.h"
#include "ember/error.h"
#include "ember/intrusive_ptr.h"
#include "ember/small_vector.h"
#include "ember/storage.h"

namespace ember {

struct AutogradMeta;  // grad, grad_fn, hooks: defined by lib/autograd

class TensorImpl : public RefCounted {
 public:
  TensorImpl(IntrusivePtr<Storage> storage, int64_t offset, DimVector sizes, DimVector strides,
             DType dtype);

  const IntrusivePtr<Storage>& storage() const { return storage_; }
  int64_t storage_offset() const { return offset_; }
  const DimVector& sizes() const { return sizes_; }
  const DimVector& strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  DType dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  bool is_contiguous() const { return is_contiguous_; }
  void* data() const {
    return static_cast<char*>(storage_->data()) + offset_ * static_cast<int64_t>(itemsize(dtype_));
  }

  // Changes the view in place (as_strided_, squeeze_, t_, ...).
  void set_geometry(DimVector sizes, DimVector strides, int64_t offset);
  // Takes src's storage, geometry and dtype, keeping this tensor's identity and
  // autograd flags (torch's set_data: Module::to converts parameters in place).
  void set_data(const TensorImpl& src);

  // A 0-dim tensor made from a Python number: it takes part in type promotion
  // with a lower priority than real tensors (as in PyTorch).
  bool is_wrapped_number = false;

  bool requires_grad = false;
  // Made in inference mode (or a view of such a tensor): it never joins autograd
  // outside inference mode (ember/inference_mode.h).
  bool is_inference = false;
  std::shared_ptr<AutogradMeta> autograd;

 private:
  void refresh();

  IntrusivePtr<Storage> storage_;
  int64_t offset_;
  DimVector sizes_;
  DimVector strides_;
  int64_t numel_ = 1;
  DType dtype_;
  bool is_contiguous_ = true;
};

}  // namespace ember
