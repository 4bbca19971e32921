// Tensor's own methods: each forwards to the free function of the same name.
#include "ember/tensor.h"

#include "kernels/dtype_dispatch.h"
#include "dispatch/dispatcher.h"
#include "ember/ops/views.h"

namespace ember {

Scalar Tensor::item() const {
  EMBER_CHECK(defined(), "item: undefined tensor");
  EMBER_CHECK(numel() == 1, "item: a Tensor with ", numel(),
              " elements cannot be converted to Scalar");
  note_host_read("item()");
  Tensor host = is_cpu() ? *this : cpu();
  Scalar result;
  EMBER_DISPATCH_ALL(host.dtype(), "item", [&] {
    scalar_t v = *static_cast<const scalar_t*>(host.data_ptr());
    if constexpr (std::is_same_v<scalar_t, bool>) result = Scalar(v);
    else if constexpr (is_float_v<scalar_t>) result = Scalar(static_cast<double>(v));
    else result = Scalar(static_cast<int64_t>(v));
  });
  return result;
}

Tensor Tensor::view(const IntList& shape) const { return ember::view(*this, shape); }
Tensor Tensor::reshape(const IntList& shape) const { return ember::reshape(*this, shape); }
Tensor Tensor::transpose(int64_t d0, int64_t d1) const { return ember::transpose(*this, d0, d1); }
Tensor Tensor::permute(const IntList& dims) const { return ember::permute(*this, dims); }
Tensor Tensor::t() const { return ember::t(*this); }
Tensor Tensor::mT() const {
  EMBER_CHECK(dim() >= 2, "mT: tensor.mT is only supported on matrices or batches of matrices. "
              "Got ", dim(), "-D tensor.");
  return ember::transpose(*this, -2, -1);
}
Tensor Tensor::expand(const IntList& shape) const { return ember::expand(*this, shape); }
Tensor Tensor::expand_as(const Tensor& o) const {
  return ember::expand(*this, IntList(o.sizes().begin(), o.sizes().end()));
}
Tensor Tensor::squeeze() const { return ember::squeeze(*this); }
Tensor Tensor::squeeze(int64_t d) const { return ember::squeeze(*this, d); }
Tensor Tensor::unsqueeze(int64_t d) const { return ember::unsqueeze(*this, d); }
Tensor Tensor::flatten(int64_t s, int64_t e) const { return ember::flatten(*this, s, e); }
Tensor Tensor::unflatten(int64_t d, const IntList& sizes) const { return ember::unflatten(*this, d, sizes); }
Tensor Tensor::narrow(int64_t d, int64_t start, int64_t len) const { return ember::narrow(*this, d, start, len); }
Tensor Tensor::select(int64_t d, int64_t i) const { return ember::select(*this, d, i); }
Tensor Tensor::slice(int64_t d, std::optional<int64_t> s, std::optional<int64_t> e, int64_t step) const {
  return ember::slice(*this, d, s, e, step);
}
TensorList Tensor::unbind(int64_t d) const { return ember::unbind(*this, d); }
Tensor Tensor::as_strided(const IntList& sizes, const IntList& strides, std::optional<int64_t> off) const {
  return ember::as_strided(*this, sizes, strides, off);
}
Tensor Tensor::view_as(const Tensor& o) const {
  return ember::view(*this, IntList(o.sizes().begin(), o.sizes().end()));
}
Tensor Tensor::reshape_as(const Tensor& o) const {
  return ember::reshape(*this, IntList(o.sizes().begin(), o.sizes().end()));
}
Tensor Tensor::movedim(int64_t s, int64_t d) const { return ember::movedim(*this, s, d); }

Tensor Tensor::contiguous() const { return ember::contiguous(*this); }
Tensor Tensor::clone() const { return ember::clone(*this); }
Tensor Tensor::to(DType dtype, bool copy) const { return ember::to(*this, std::nullopt, dtype, false, copy); }
Tensor Tensor::to(Device device, bool non_blocking, bool copy) const {
  return ember::to(*this, device, std::nullopt, non_blocking, copy);
}
Tensor Tensor::to(Device device, DType dtype, bool non_blocking, bool copy) const {
  return ember::to(*this, device, dtype, non_blocking, copy);
}
Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) { return ember::copy_(*this, src, non_blocking); }
Tensor& Tensor::fill_(const Scalar& value) { return ember::fill_(*this, value); }
Tensor Tensor::detach() const { return ember::detach(*this); }

}  // namespace ember
