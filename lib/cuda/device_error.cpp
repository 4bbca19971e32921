// The per-device slots kernels report data errors into, and raising them on the host
// (device_error.h).
#include "cuda/device_error.h"

#include <cuda_runtime.h>

#include <atomic>
#include <mutex>

#include "cuda/cuda_check.h"
#include "ember/error.h"

namespace ember::cuda {
namespace {

constexpr int kMaxDevices = 64;

struct Slots {
  std::mutex mutex;
  std::atomic<DeviceErrorSlot*> host[kMaxDevices] = {};  // mapped, pinned host memory
  std::atomic<DeviceErrorSlot*> device[kMaxDevices] = {};  // the same memory as the GPU sees it
};

Slots& slots() {
  static Slots* s = new Slots;  // never destroyed: kernels may report until exit
  return *s;
}

[[noreturn]] void throw_reported(const DeviceErrorSlot& e, int device) {
  const char* op = op_name(static_cast<OpId>(e.op));
  std::string where = ::ember::detail::str(op, " (a CUDA kernel on cuda:", device, ")");
  switch (static_cast<DeviceErrorKind>(e.kind)) {
    case DeviceErrorKind::IndexOutOfRange:
      throw IndexError(::ember::detail::str(where, ": index ", e.value, " is out of bounds for size ", e.bound));
    case DeviceErrorKind::TargetOutOfRange:
      throw IndexError(::ember::detail::str(where, ": target ", e.value, " is out of bounds (", e.bound, " classes)"));
    case DeviceErrorKind::NegativeValue:
      throw ValueError(::ember::detail::str(where, ": found a negative value (", e.value, ")"));
    case DeviceErrorKind::InvalidProbability:
      throw ValueError(::ember::detail::str(where, ": found a value outside [0, 1]"));
    case DeviceErrorKind::ZeroDivision:
      throw Error(::ember::detail::str("ZeroDivisionError: ", where, ": integer division by zero"));
    default:
      throw Error(::ember::detail::str(where, ": reported error ", e.kind));
  }
}

}  // namespace

DeviceErrorReporter device_error_reporter(int device, OpId op) {
  EMBER_CHECK(device >= 0 && device < kMaxDevices, "CUDA device index ", device, " out of range");
  Slots& s = slots();
  // Every launch that can report asks for its slot: after the first, no lock.
  if (DeviceErrorSlot* ready = s.device[device].load(std::memory_order_acquire))
    return DeviceErrorReporter{ready, static_cast<int32_t>(op)};
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.device[device].load(std::memory_order_relaxed)) {
    void* host = nullptr;
    EMBER_CUDA_CHECK(cudaHostAlloc(&host, sizeof(DeviceErrorSlot), cudaHostAllocMapped | cudaHostAllocPortable));
    *static_cast<DeviceErrorSlot*>(host) = DeviceErrorSlot{};
    void* dev = nullptr;
    EMBER_CUDA_CHECK(cudaHostGetDevicePointer(&dev, host, 0));
    s.host[device].store(static_cast<DeviceErrorSlot*>(host), std::memory_order_release);
    s.device[device].store(static_cast<DeviceErrorSlot*>(dev), std::memory_order_release);
  }
  return DeviceErrorReporter{s.device[device].load(std::memory_order_relaxed), static_cast<int32_t>(op)};
}

void raise_device_error(int device) {
  if (device < 0 || device >= kMaxDevices) return;
  DeviceErrorSlot* slot = slots().host[device].load(std::memory_order_acquire);
  if (!slot) return;
  volatile int32_t* kind = &slot->kind;
  if (*kind <= 0) return;  // none, or a report still being written (the next wait sees it)
  DeviceErrorSlot reported = *slot;
  *kind = 0;
  throw_reported(reported, device);
}

}  // namespace ember::cuda
