// Copies, conversions, fills: the op functions of the core group.
#include "core/scalar_range.h"
#include "core/pinned.h"
#include "dispatch/args/core.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/core.h"
#include "ember/autograd.h"
#include "ember/cuda.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"
#include "ops/make_view.h"

namespace ember {

Tensor& copy_(Tensor& dst, const Tensor& src, bool non_blocking) {
  EMBER_CHECK(src.defined() && dst.defined(), "copy_: undefined tensor");
  DimVector b = broadcast_shapes(dst.sizes(), src.sizes(), "copy_");
  EMBER_CHECK(b == dst.sizes(), "copy_: the source of shape ", shape_str(src.sizes()),
              " cannot be broadcast to the destination of shape ", shape_str(dst.sizes()));
  OpCall call(opid::copy_, {dst, src}, CopyArgs{.non_blocking = non_blocking}.attrs());
  call.outputs.push_back(dst);
  // A cross-device copy runs on the non-CPU side's backend.
  call.device = dst.is_cpu() ? src.device() : dst.device();
  dispatch(call);
  return dst;
}

Tensor& fill_(Tensor& self, const Scalar& value) {
  check_scalar_fits("fill_", value, self.dtype());
  OpCall call(opid::fill_, {self}, FillArgs{.value = value}.attrs());
  call.outputs.push_back(self);
  dispatch(call);
  return self;
}

Tensor contiguous(const Tensor& self) { return self.is_contiguous() ? self : clone(self); }

Tensor clone(const Tensor& self) {
  Tensor out = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  copy_(out, self);
  return out;
}

Tensor to(const Tensor& self, std::optional<Device> device, std::optional<DType> dtype,
          bool non_blocking, bool copy) {
  Device d = device.value_or(self.device());
  if (d.is_cpu()) d = kCPU;
  // "cuda" is the current device: a tensor already there needs no copy.
  if (d.is_cuda() && d.index < 0 && self.is_cuda()) d = Device(DeviceType::CUDA, cuda::current_device());
  DType t = dtype.value_or(self.dtype());
  if (!copy && d == self.device() && t == self.dtype()) return self;
  // As in PyTorch, a non_blocking copy from a GPU lands in pinned memory, so that it
  // really is asynchronous (the caller synchronizes before reading it).
  Tensor out = non_blocking && d.is_cpu() && self.is_cuda()
                   ? empty_pinned(self.sizes(), t)
                   : empty(self.sizes(), TensorOptions(t).device(d));
  copy_(out, self, non_blocking);
  return out;
}

Tensor detach(const Tensor& self) {
  EMBER_CHECK(self.defined(), "detach: expected a defined tensor, got an undefined one");
  // Outside a trace the alias is made directly: dispatched, it would pass the autograd
  // layer's view tracking only to have that dropped below (detach was slower than
  // PyTorch's for it). In a trace it is dispatched, so the graph records it.
  if (!dispatch_state().tracing)
    return make_view(self, self.sizes(), self.strides(), self.storage_offset());
  NoGradGuard no_grad;  // detach is not recorded: its result has no history
  Tensor out = alias(self);
  out.impl()->requires_grad = false;
  out.impl()->autograd.reset();
  return out;
}

}  // namespace ember
