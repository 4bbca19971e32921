// copy_ on CUDA: host <-> device transfers and device <-> device copies.
//
// A transfer moves one contiguous block with cudaMemcpyAsync on the current stream
// of the CUDA side. What the block cannot express is done where it is cheap:
// casts, broadcasts and gathers of a host source on the host before the transfer;
// gathers and broadcasts of a device source on the device, casts after it on the
// host. The host waits for the stream unless non_blocking is set and the host side
// is ember's pinned memory, whose block then waits for the stream before reuse.
// Between CUDA tensors everything, casts included, happens on the device.
#include "cuda/cuda_allocator.h"
#include "cuda/cuda_check.h"
#include "cuda/strided_ops.h"
#include "dispatch/args/core.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/core.h"
#include "ember/ops/factories.h"

namespace ember::cuda {
namespace {

cudaStream_t raw(const Stream& s) { return static_cast<cudaStream_t>(s.handle()); }

// The same bytes in the same order: one memcpy copies src into dst.
bool same_block_layout(const Tensor& dst, const Tensor& src) {
  return dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous() &&
         dst.numel() == src.numel();
}

Tensor empty_like_on(const Tensor& like, DType dtype, Device device) {
  return empty(like.sizes(), TensorOptions(dtype).device(device));
}

void finish_host_side(const Tensor& host, const Stream& stream, bool non_blocking) {
  if (non_blocking && memory::record_pinned_use(host.impl()->storage()->data(), stream)) return;
  stream.synchronize();
}

void copy_host_to_device(const Tensor& dst, const Tensor& src, bool non_blocking) {
  Tensor host = src;
  if (!same_block_layout(dst, src)) {
    host = empty_like_on(dst, dst.dtype(), kCPU);
    host.copy_(src);
  }
  int device = dst.device().index;
  DeviceGuard guard(device);
  Stream stream = current_stream(device);
  Tensor target = dst.is_contiguous() ? dst : empty_like_on(dst, dst.dtype(), dst.device());
  EMBER_CUDA_CHECK(cudaMemcpyAsync(target.data_ptr(), host.data_ptr(),
                                   static_cast<size_t>(host.nbytes()), cudaMemcpyHostToDevice,
                                   raw(stream)));
  if (!target.is_same(dst)) strided_copy(dst, target, stream);
  finish_host_side(host, stream, non_blocking);
}

void copy_device_to_host(const Tensor& dst, const Tensor& src, bool non_blocking) {
  int device = src.device().index;
  DeviceGuard guard(device);
  Stream stream = current_stream(device);
  Tensor dense = src;
  if (!src.is_contiguous() || src.numel() != dst.numel()) {
    dense = empty_like_on(dst, src.dtype(), src.device());
    strided_copy(dense, src, stream);
  }
  bool direct = same_block_layout(dst, dense);
  Tensor host = direct ? dst : empty_like_on(dst, src.dtype(), kCPU);
  EMBER_CUDA_CHECK(cudaMemcpyAsync(host.data_ptr(), dense.data_ptr(),
                                   static_cast<size_t>(dense.nbytes()), cudaMemcpyDeviceToHost,
                                   raw(stream)));
  // A cast or scatter on the host must wait for the transfer.
  finish_host_side(host, stream, non_blocking && direct);
  if (!direct) Tensor(dst).copy_(host);
}

void copy_within_device(const Tensor& dst, const Tensor& src) {
  int device = dst.device().index;
  DeviceGuard guard(device);
  Stream stream = current_stream(device);
  if (same_block_layout(dst, src) && dst.data_ptr() == src.data_ptr()) return;
  // Copying onto an overlapping view of itself would read values already overwritten.
  Tensor source = src.impl()->storage() == dst.impl()->storage() ? src.clone() : src;
  if (same_block_layout(dst, source))  // same dtype, one block
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), source.data_ptr(),
                                     static_cast<size_t>(dst.nbytes()), cudaMemcpyDeviceToDevice,
                                     raw(stream)));
  else
    strided_copy(dst, source, stream);
}

// Contiguous blocks, copied on dst's stream once src's stream has produced src;
// src's stream then waits for the copy, so src's memory is not reused too early.
void copy_across_devices(const Tensor& dst, const Tensor& src) {
  int dst_device = dst.device().index, src_device = src.device().index;
  Stream src_stream = current_stream(src_device), dst_stream = current_stream(dst_device);
  Tensor dense = src;
  if (!src.is_contiguous() || src.numel() != dst.numel()) {
    DeviceGuard guard(src_device);
    dense = empty_like_on(dst, src.dtype(), src.device());
    strided_copy(dense, src, src_stream);
  }
  DeviceGuard guard(dst_device);
  Tensor target = dst.is_contiguous() ? dst : empty_like_on(dst, dst.dtype(), dst.device());
  dst_stream.wait_stream(src_stream);
  EMBER_CUDA_CHECK(cudaMemcpyPeerAsync(target.data_ptr(), dst_device, dense.data_ptr(), src_device,
                                       static_cast<size_t>(dense.nbytes()), raw(dst_stream)));
  if (!target.is_same(dst)) strided_copy(dst, target, dst_stream);
  src_stream.wait_stream(dst_stream);
}

void copy_kernel(OpCall& c) {
  const Tensor& dst = c.outputs[0];
  const Tensor& src = c.in(1);
  const CopyArgs a = CopyArgs::from(c);
  if (dst.numel() == 0) return;
  if (src.is_cpu()) return copy_host_to_device(dst, src, a.non_blocking);
  if (dst.is_cpu()) return copy_device_to_host(dst, src, a.non_blocking);
  if (src.device() == dst.device()) return copy_within_device(dst, src);
  if (src.dtype() == dst.dtype()) return copy_across_devices(dst, src);
  // Moved as it is, then converted on the destination's device.
  Tensor moved = empty_like_on(src, src.dtype(), dst.device());
  copy_across_devices(moved, src);
  copy_within_device(dst, moved);
}

EMBER_REGISTER_KERNEL(copy_, CUDA, copy_kernel);

}  // namespace
}  // namespace ember::cuda
