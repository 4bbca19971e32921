// The CPU's raw allocator and the process-wide CPU caching allocator, plus the public
// memory-statistics functions of ember/memory.h.
#include <cstdlib>

#include "ember/error.h"
#include "ember/memory.h"
#include "memory/caching_allocator.h"

namespace ember::memory {

namespace {

// 64 bytes: a cache line, and the widest vector load (AVX-512) the kernels use.
constexpr size_t kCpuAlignment = 64;

class CpuRawAllocator final : public RawAllocator {
 public:
  void* raw_alloc(size_t nbytes) override {
    // aligned_alloc wants a multiple of the alignment.
    size_t size = (nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
    if (size < nbytes) return nullptr;  // wrapped around: no such memory
    return std::aligned_alloc(kCpuAlignment, size == 0 ? kCpuAlignment : size);
  }
  void raw_free(void* ptr) override { std::free(ptr); }
  const char* device_name() const override { return "cpu"; }
};

}  // namespace

CachingAllocator& cpu_allocator() {
  // Leaked on purpose: tensors destroyed during static destruction still free into it.
  static auto* allocator = new CachingAllocator(std::make_unique<CpuRawAllocator>());
  return *allocator;
}

}  // namespace ember::memory

namespace ember {

namespace {

memory::CachingAllocator& allocator_for(Device device, const char* fn) {
  if (device.is_cuda())
    throw NotImplementedError(detail::str(fn, ": the CUDA backend is not built"));
  return memory::cpu_allocator();
}

}  // namespace

MemoryStats memory_stats(Device device) { return allocator_for(device, "memory_stats").stats(); }

void reset_peak_memory_stats(Device device) {
  allocator_for(device, "reset_peak_memory_stats").reset_peak_stats();
}

void empty_cache(Device device) { allocator_for(device, "empty_cache").empty_cache(); }

}  // namespace ember
