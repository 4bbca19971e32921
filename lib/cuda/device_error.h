// Errors that only a kernel can see (an index out of range in gather, embedding,
// nll_loss, ...). A kernel cannot throw: it reports the first such error into a
// per-device slot of host-visible (mapped, pinned) memory, and the host raises it
// as an ember error the next time it waits for that device (synchronize(), item(),
// cpu(), printing: every place the host reads a result). PyTorch stops the process's
// CUDA context with "device-side assert triggered"; ember names the op, the bad
// value and the bound, and the device stays usable.
//
//   host:    DeviceErrorReporter err = device_error_reporter(device, opid::gather);  // a kernel argument
//   kernel:  if (i < 0 || i >= n) { err.report(DeviceErrorKind::IndexOutOfRange, i, n); continue; }
//
// A kernel that reports skips the bad element (its output there is unspecified
// until the error is raised, which happens before the host can read it).
#pragma once
#include <cstdint>

#include "dispatch/op_table.h"
#include "ember/half.h"  // EMBER_HOST_DEVICE

namespace ember::cuda {

enum class DeviceErrorKind : int32_t {
  None = 0,
  IndexOutOfRange = 1,     // value = the index, bound = the size it indexes (IndexError)
  TargetOutOfRange = 2,    // a class target of a loss (IndexError)
  NegativeValue = 3,       // e.g. a negative count or probability (ValueError)
  InvalidProbability = 4,  // value outside [0, 1] (bernoulli, binary_cross_entropy) (ValueError)
  ZeroDivision = 5,        // integer division by zero (ZeroDivisionError -> RuntimeError)
};

struct DeviceErrorSlot {
  int32_t kind;  // DeviceErrorKind; 0 while no error was reported
  int32_t op;    // the OpId of the launch that reported it
  int64_t value;
  int64_t bound;
};

// A kernel argument: where to report, and which op is reporting.
struct DeviceErrorReporter {
  DeviceErrorSlot* slot;
  int32_t op;
#if defined(__CUDACC__)
  // The first report wins; later ones (of any thread or kernel) are dropped.
  __device__ void report(DeviceErrorKind kind, int64_t value, int64_t bound) const {
    if (atomicCAS(reinterpret_cast<int*>(&slot->kind), 0, -1) == 0) {
      slot->op = op;
      slot->value = value;
      slot->bound = bound;
      __threadfence_system();
      atomicExch(reinterpret_cast<int*>(&slot->kind), static_cast<int>(kind));
    }
  }
#endif
};

// The reporter for a launch of `op` on `device` (its slot is mapped host memory,
// allocated on first use).
DeviceErrorReporter device_error_reporter(int device, OpId op);

// Raises the reported error of `device`, if any, and clears it. Called after the
// host waited for the device (stream or device synchronize, a copy to the host).
void raise_device_error(int device);

}  // namespace ember::cuda
