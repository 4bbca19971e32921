// Tensor: the handle users hold. Copying one is cheap (a refcount); all copies
// and views of a tensor see the same memory. Every op method forwards to the
// free function of the same name (ember::add, ...), which goes through the
// dispatcher: there is no second path.
#pragma once
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/generator.h"
#include "ember/scalar.h"
#include "ember/tensor_impl.h"

namespace ember {

using IntList = std::vector<int64_t>;
class Tensor;
namespace autograd { class Node; }
namespace cuda { class Stream; }
using TensorList = std::vector<Tensor>;
class TensorIndex;  // one entry of x.index({...}) (ember/ops/shape_index.h)

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(IntrusivePtr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  const IntrusivePtr<TensorImpl>& impl_ptr() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

  // ---- geometry -------------------------------------------------------------
  int64_t dim() const { return checked()->dim(); }
  int64_t ndim() const { return dim(); }
  const DimVector& sizes() const { return checked()->sizes(); }
  const DimVector& strides() const { return checked()->strides(); }
  DimVector shape() const { return sizes(); }
  int64_t size(int64_t d) const;    // negative d counts from the end
  int64_t stride(int64_t d) const;
  int64_t numel() const { return checked()->numel(); }
  int64_t storage_offset() const { return checked()->storage_offset(); }
  bool is_contiguous() const { return checked()->is_contiguous(); }
  DType dtype() const { return checked()->dtype(); }
  Device device() const { return checked()->device(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_floating_point() const { return is_floating(dtype()); }
  int64_t element_size() const { return static_cast<int64_t>(itemsize(dtype())); }
  int64_t nbytes() const { return numel() * element_size(); }
  uint64_t version() const { return checked()->storage()->version(); }
  void bump_version() const { checked()->storage()->bump_version(); }

  // ---- data access ------------------------------------------------------------
  void* data_ptr() const { return checked()->data(); }
  template <typename T>
  T* data_ptr() const {
    EMBER_CHECK_TYPE(dtype_of<T>::value == dtype(), "data_ptr: tensor has dtype ",
                     dtype_name(dtype()), ", asked for ", dtype_name(dtype_of<T>::value));
    return static_cast<T*>(data_ptr());
  }
  // The value of a one-element tensor (waits for the device if needed).
  Scalar item() const;
  template <typename T> T item() const { return item().to<T>(); }

  // ---- autograd flags (the engine itself lives in lib/autograd) ---------------
  bool requires_grad() const { return impl_ && impl_->requires_grad; }
  // Made in inference mode (ember/inference_mode.h).
  bool is_inference() const { return impl_ && impl_->is_inference; }

  // ---- views (share storage; see include/ember/ops/views.h) --------------------
  Tensor view(const IntList& shape) const;
  Tensor reshape(const IntList& shape) const;
  Tensor transpose(int64_t d0, int64_t d1) const;
  Tensor swapaxes(int64_t d0, int64_t d1) const { return transpose(d0, d1); }
  Tensor permute(const IntList& dims) const;
  Tensor t() const;
  Tensor mT() const;
  Tensor expand(const IntList& shape) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t d) const;
  Tensor unsqueeze(int64_t d) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t d, const IntList& sizes) const;
  Tensor narrow(int64_t d, int64_t start, int64_t length) const;
  Tensor select(int64_t d, int64_t index) const;
  Tensor slice(int64_t d, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step = 1) const;
  TensorList unbind(int64_t d = 0) const;
  Tensor as_strided(const IntList& sizes, const IntList& strides,
                    std::optional<int64_t> storage_offset = std::nullopt) const;
  Tensor view_as(const Tensor& other) const;
  Tensor reshape_as(const Tensor& other) const;
  Tensor movedim(int64_t src, int64_t dst) const;
  Tensor unfold(int64_t dimension, int64_t size, int64_t step) const;
  // In place: this tensor itself becomes the view (resize_: see ember/ops/views.h).
  Tensor& t_();
  Tensor& transpose_(int64_t d0, int64_t d1);
  Tensor& swapaxes_(int64_t d0, int64_t d1) { return transpose_(d0, d1); }
  Tensor& squeeze_();
  Tensor& squeeze_(int64_t d);
  Tensor& unsqueeze_(int64_t d);
  Tensor& as_strided_(const IntList& sizes, const IntList& strides,
                      std::optional<int64_t> storage_offset = std::nullopt);
  Tensor& resize_(const IntList& sizes);
  Tensor& resize_as_(const Tensor& other);

  // ---- copies and conversion --------------------------------------------------
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor to(DType dtype, bool copy = false) const;
  Tensor to(Device device, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device device, DType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor cpu() const { return to(kCPU); }
  // To CUDA device `device` (-1: the current one).
  Tensor cuda(int device = -1, bool non_blocking = false) const;
  // A copy in page-locked host memory, which copies to and from a GPU can overlap
  // with other work (non_blocking=true). Needs a GPU.
  Tensor pin_memory() const;
  bool is_pinned() const;
  // The memory of this CUDA tensor is also used by work queued on `stream`: the
  // caching allocator reuses it only after that work is done.
  void record_stream(const cuda::Stream& stream) const;
  Tensor float_() const { return to(kFloat32); }
  Tensor& copy_(const Tensor& src, bool non_blocking = false);
  Tensor& fill_(const Scalar& value);
  Tensor& zero_() { return fill_(0); }
  Tensor detach() const;

  std::string str() const;  // the printed form, like PyTorch's repr

#include "ember/methods/autograd.inc"

  // ---- ops, grouped as in include/ember/ops/ -----------------------------------
 public:
#include "ember/methods/elementwise.inc"
#include "ember/methods/reduce.inc"
#include "ember/methods/linalg.inc"
#include "ember/methods/nn.inc"
#include "ember/methods/shape_index.inc"
#include "ember/methods/random.inc"
#include "ember/generated/methods.inc"  // the structured ops' (build/generated/include)

 private:
  TensorImpl* checked() const {
    EMBER_CHECK(impl_, "tensor is undefined (default-constructed)");
    return impl_.get();
  }
  IntrusivePtr<TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

// Helpers every op uses.
// Wraps a negative dim and checks range: "op: dim 3 is out of range for a 2-d tensor".
int64_t wrap_dim(int64_t d, int64_t ndim, const char* op);
// "[2, 3]"
std::string shape_str(const DimVector& s);
// Contiguous strides for sizes.
DimVector contiguous_strides(const DimVector& sizes);
// "tensor of shape [2, 3], dtype float32 on cpu", for error messages.
std::string describe(const Tensor& t);

}  // namespace ember
