// A hook Storage::allocate calls before it takes memory from a device's caching
// allocator, so that a layer above the allocator can make room first: the memory
// budget's rematerialization runtime (lib/remat) evicts recomputable tensors there.
// Unset (nullptr) unless a budget was ever set: one relaxed load per allocation.
#pragma once
#include <atomic>
#include <cstddef>

#include "ember/device.h"

namespace ember {

using BeforeAllocationHook = void (*)(Device device, size_t nbytes);
extern std::atomic<BeforeAllocationHook> g_before_allocation;

}  // namespace ember
