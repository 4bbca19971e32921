// The synchronizing debug mode of the CUDA backend. A kernel that finds bad data (an
// index out of range, lib/cuda/device_error.h) reports it into a slot the host reads at
// its next wait for the device, so the error names the right op but surfaces at a later
// line. With CUDA_LAUNCH_BLOCKING=1 in the environment (the variable PyTorch's users set
// for the same reason), or ember.cuda._set_launch_blocking(True), the dispatcher waits
// for every CUDA op's kernels right after it, and the error is raised by that op's call.
#pragma once
#include <atomic>

namespace ember::cuda {

namespace detail {
extern std::atomic<bool> launch_blocking_flag;
}  // namespace detail

inline bool launch_blocking() { return detail::launch_blocking_flag.load(std::memory_order_relaxed); }
void set_launch_blocking(bool on);

}  // namespace ember::cuda
