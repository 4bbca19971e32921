// EMBER_CUDA_CHECK(call): a failed CUDA runtime call becomes an ember::Error naming
// the call, the error and where it was made (OutOfMemoryError for out of memory).
#pragma once
#include <cuda_runtime_api.h>

namespace ember::cuda::detail {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);

inline void check(cudaError_t err, const char* call, const char* file, int line) {
  if (__builtin_expect(err != cudaSuccess, 0)) throw_cuda_error(err, call, file, line);
}

// For cudaStreamQuery and cudaEventQuery: true when done, false when not ready.
inline bool check_ready(cudaError_t err, const char* call, const char* file, int line) {
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();  // "not ready" is an answer, not an error
    return false;
  }
  check(err, call, file, line);
  return true;
}

// Throws unless a GPU is usable ("no CUDA GPU is available"); `what` names the caller.
void require_gpu(const char* what);
// A device index, -1 meaning the current device, checked against device_count().
int resolve_device(int device, const char* what);

}  // namespace ember::cuda::detail

#define EMBER_CUDA_CHECK(call) ::ember::cuda::detail::check((call), #call, __FILE__, __LINE__)
#define EMBER_CUDA_QUERY(call) ::ember::cuda::detail::check_ready((call), #call, __FILE__, __LINE__)
