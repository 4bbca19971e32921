// The CPU's raw allocator and the process-wide CPU caching allocator.
#include <cstdlib>

#include "ember/error.h"
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
  static auto* allocator = new CachingAllocator(std::make_unique<CpuRawAllocator>(), /*quick_lists=*/true);
  return *allocator;
}

}  // namespace ember::memory
