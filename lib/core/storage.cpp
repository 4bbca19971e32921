#include "ember/storage.h"

#include "ember/error.h"
#include "memory/caching_allocator.h"

// Note [Versions]: a Storage counts the in-place writes made to it. Views share
// their base's Storage, so a write through any view is seen by all of them. The
// dispatcher bumps the version of every tensor an op writes into (preset
// outputs); autograd compares saved versions with current ones to catch a saved
// tensor that was overwritten before backward.

namespace ember {

static void free_from_cpu_allocator(void*, void* data) { memory::cpu_allocator().free(data); }

IntrusivePtr<Storage> Storage::allocate(size_t nbytes, Device device) {
  EMBER_CHECK(device.is_cpu(), "cannot allocate on ", device.str(),
              ": ember was built without the CUDA backend");
  void* data = memory::cpu_allocator().allocate(nbytes);
  return make_intrusive<Storage>(data, nbytes, device, &free_from_cpu_allocator, nullptr);
}

}  // namespace ember
