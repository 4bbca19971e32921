// Views and copies. A view shares its base's storage (no copy); the rest copy.
// The methods of Tensor (x.view(...), x.transpose(...)) call these.
#pragma once
#include <optional>

#include "ember/tensor.h"

namespace ember {

Tensor view(const Tensor& self, const IntList& shape);      // -1 infers one size
Tensor reshape(const Tensor& self, const IntList& shape);   // a view when possible, else a copy
Tensor transpose(const Tensor& self, int64_t d0, int64_t d1);
Tensor permute(const Tensor& self, const IntList& dims);
Tensor t(const Tensor& self);                                // 0-d, 1-d or 2-d only
Tensor expand(const Tensor& self, const IntList& shape);    // -1 keeps a size
Tensor squeeze(const Tensor& self);
Tensor squeeze(const Tensor& self, int64_t dim);
Tensor unsqueeze(const Tensor& self, int64_t dim);
Tensor flatten(const Tensor& self, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor unflatten(const Tensor& self, int64_t dim, const IntList& sizes);
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& self, int64_t dim, int64_t index);
// Python's self[start:end:step] along dim, with Python's clamping of start and end.
Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> end, int64_t step = 1);
TensorList unbind(const Tensor& self, int64_t dim = 0);
Tensor as_strided(const Tensor& self, const IntList& sizes, const IntList& strides,
                  std::optional<int64_t> storage_offset = std::nullopt);
Tensor movedim(const Tensor& self, int64_t src, int64_t dst);
Tensor alias(const Tensor& self);  // a new handle on the same view
// Every window of `size` elements along `dimension`, `step` apart, as a new last dim.
Tensor unfold(const Tensor& self, int64_t dimension, int64_t size, int64_t step);

// In-place views (lib/ops/views_in_place.cpp): self itself becomes the view.
Tensor& t_(Tensor& self);
Tensor& transpose_(Tensor& self, int64_t d0, int64_t d1);
Tensor& squeeze_(Tensor& self);
Tensor& squeeze_(Tensor& self, int64_t dim);
Tensor& squeeze_(Tensor& self, const IntList& dims);
Tensor& unsqueeze_(Tensor& self, int64_t dim);
Tensor& as_strided_(Tensor& self, const IntList& sizes, const IntList& strides,
                    std::optional<int64_t> storage_offset = std::nullopt);
// Gives self the sizes (contiguous strides, same storage offset), growing its storage
// when needed; the elements beyond the old storage are uninitialized. Not on tensors
// that require grad.
Tensor& resize_(Tensor& self, const IntList& sizes);
Tensor& resize_as_(Tensor& self, const Tensor& other);
Tensor detach(const Tensor& self);

Tensor contiguous(const Tensor& self);
Tensor clone(const Tensor& self);
Tensor to(const Tensor& self, std::optional<Device> device, std::optional<DType> dtype,
          bool non_blocking = false, bool copy = false);
Tensor& copy_(Tensor& dst, const Tensor& src, bool non_blocking = false);
Tensor& fill_(Tensor& self, const Scalar& value);

// The shape that a and b broadcast to; ValueError-free: throws Error naming op.
DimVector broadcast_shapes(const DimVector& a, const DimVector& b, const char* op = "broadcast_shapes");
// PyTorch's result_type for an op's operands (Note [Type promotion] in lib/core/dtype.cpp).
DType result_type(std::initializer_list<const Tensor*> operands);
DType result_type(const Tensor& a, const Tensor& b);
// Whether a value of type from may be written into type to by an op (torch.can_cast).
bool can_cast(DType from, DType to);

}  // namespace ember
