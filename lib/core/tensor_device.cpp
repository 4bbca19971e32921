// Tensor methods about where memory lives: cuda(), pin_memory(), is_pinned(),
// record_stream().
#include "ember/autograd.h"
#include "ember/cuda.h"
#include "ember/tensor.h"
#include "core/pinned.h"
#include "memory/caching_allocator.h"

namespace ember {

Tensor Tensor::cuda(int device, bool non_blocking) const {
  return to(Device(DeviceType::CUDA, device), non_blocking);
}

Tensor empty_pinned(const DimVector& sizes, DType dtype) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;  // sizes of an existing tensor: no overflow
  size_t nbytes = static_cast<size_t>(numel) * itemsize(dtype);
  memory::CachingAllocator& allocator = memory::pinned_host_allocator();
  void* data = allocator.allocate(nbytes, memory::kHostStream);
  auto storage = make_intrusive<Storage>(data, nbytes, kCPU, &memory::free_to_allocator, &allocator);
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), 0, sizes, contiguous_strides(sizes),
                                           dtype));
}

Tensor Tensor::pin_memory() const {
  EMBER_CHECK(is_cpu(), "pin_memory: cannot pin a tensor on ", device().str(),
              ": only CPU tensors can be pinned");
  if (is_pinned()) return *this;
  Tensor out = empty_pinned(sizes(), dtype());
  NoGradGuard no_grad;  // like detach(): the pinned copy starts without history
  out.copy_(*this);
  return out;
}

bool Tensor::is_pinned() const { return is_cpu() && memory::is_pinned_host_ptr(data_ptr()); }

void Tensor::record_stream(const cuda::Stream& stream) const {
  EMBER_CHECK(is_cuda(), "record_stream: expected a CUDA tensor, got one on ", device().str());
  EMBER_CHECK(stream.device() == device().index, "record_stream: the tensor is on ",
              device().str(), " but the stream on cuda:", stream.device());
  void* block = impl()->storage()->data();
  memory::CachingAllocator& allocator = memory::cuda_allocator(device().index);
  EMBER_CHECK(allocator.owns(block), "record_stream: the memory of this tensor was not "
              "allocated by ember's CUDA caching allocator");
  allocator.record_stream(block, stream.id());
}

}  // namespace ember
