// What CUDA code needs of the pinned host allocator beyond lib/memory/caching_allocator.h.
#pragma once
#include "ember/cuda.h"

namespace ember::memory {

// Notes that work queued on `stream` uses the pinned block `block` (a Storage's data),
// so the block is reused only after that work is done. False, and nothing noted, when
// the block is not from ember's pinned allocator.
bool record_pinned_use(void* block, const cuda::Stream& stream);

}  // namespace ember::memory
