#include "ember/storage.h"

#include "core/allocation_hook.h"
#include "ember/cuda.h"
#include "ember/error.h"
#include "memory/caching_allocator.h"

// Note [Versions]: a Storage counts the in-place writes made to it. Views share
// their base's Storage, so a write through any view is seen by all of them. The
// dispatcher bumps the version of every tensor an op writes into (preset
// outputs); autograd compares saved versions with current ones to catch a saved
// tensor that was overwritten before backward.

namespace ember {

std::atomic<BeforeAllocationHook> g_before_allocation{nullptr};

IntrusivePtr<Storage> Storage::allocate(size_t nbytes, Device device) {
  if (BeforeAllocationHook hook = g_before_allocation.load(std::memory_order_relaxed)) {
    // The hook sees the device the memory will come from ("cuda" means the current one).
    Device where = device;
    if (where.is_cuda() && where.index < 0 && cuda::is_available()) where.index = cuda::current_device();
    hook(where, nbytes);
  }
  if (device.is_cuda()) {
    EMBER_CHECK(cuda::is_available(), "cannot allocate memory on ", device.str(), ": ",
                cuda::is_built() ? "no CUDA GPU is available" : "ember was built without CUDA");
    // "cuda" means the current device; the storage records which one it is.
    int index = device.index >= 0 ? device.index : cuda::current_device();
    memory::CachingAllocator& allocator = memory::cuda_allocator(index);
    // The block belongs to the stream the allocating op queues its work on.
    void* data = allocator.allocate(nbytes, cuda::current_stream(index).id());
    return make_intrusive<Storage>(data, nbytes, Device(DeviceType::CUDA, index),
                                   &memory::free_to_allocator, &allocator);
  }
  memory::CachingAllocator& allocator = memory::cpu_allocator();
  void* data = allocator.allocate(nbytes);
  return make_intrusive<Storage>(data, nbytes, device, &memory::free_to_allocator, &allocator);
}

}  // namespace ember
