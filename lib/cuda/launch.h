// What every CUDA kernel file needs on the host side: the current stream of a
// tensor's device, launch sizes, and the check after a launch.
//
// Every kernel is queued on the current stream of its device (DESIGN.md,
// "Streams") and never waited on: a kernel file gets the stream with
// stream_for(t), launches, then EMBER_CUDA_CHECK_LAUNCH().
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/cuda_check.h"
#include "ember/cuda.h"
#include "ember/tensor.h"

namespace ember::cuda {

// The current stream of t's device (also makes that device current for the
// launch: hold the guard as long as kernels are queued).
struct LaunchContext {
  explicit LaunchContext(const Tensor& t)
      : guard(t.device().index), stream(static_cast<cudaStream_t>(current_stream(t.device().index).handle())) {}
  DeviceGuard guard;
  cudaStream_t stream;
};

// Threads per block for the simple one-thread-per-element kernels.
constexpr int kBlockThreads = 256;

// Blocks to cover n work items with `threads` per block; a grid-stride loop in
// the kernel covers whatever a capped grid leaves.
inline unsigned blocks_for(int64_t n, int threads = kBlockThreads) {
  constexpr int64_t kMaxBlocks = int64_t(1) << 30;
  int64_t b = (n + threads - 1) / threads;
  if (b < 1) b = 1;
  return static_cast<unsigned>(b < kMaxBlocks ? b : kMaxBlocks);
}

// The number of multiprocessors of the current device (cached per device).
int multiprocessor_count();

}  // namespace ember::cuda

// After a launch: a bad configuration becomes an ember::Error naming the file and line.
#define EMBER_CUDA_CHECK_LAUNCH() EMBER_CUDA_CHECK(cudaGetLastError())
