// The rematerialization runtime's place in the backend layer (lib/remat/remat.h).
// While a memory budget is set (or evicted tensors remain), the backend layer hands
// every call to the runtime, which brings the call's evicted tensors back and pins
// them, then runs the kernel through dispatch_backend_kernel. Otherwise the backend
// layer tests one relaxed global flag.
#pragma once
#include <atomic>

#include "dispatch/dispatcher.h"

namespace ember {

// Installs the runtime's entry and turns it on or off (the runtime keeps it on while
// it holds a budget or evicted memory).
void set_remat_layer(LayerFn fn);
void set_remat_active(bool on);
// The backend layer's own work: find the kernel, check, run, bump versions.
void dispatch_backend_kernel(OpCall& call);

}  // namespace ember
