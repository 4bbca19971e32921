// The kernel registered for (op, device), or nullptr. Kept out of dispatcher.h: only
// tests need it, to take a kernel away and put it back (register_kernel).
#pragma once
#include "dispatch/dispatcher.h"

namespace ember {

KernelFn find_kernel(OpId op, DeviceType device);

}  // namespace ember
