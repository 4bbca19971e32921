// cuBLAS and cuBLASLt for the matrix-product kernels: the libraries (opened at run
// time, lib/cuda/dynamic_library.h), one handle of each per (device, thread), a
// workspace per (handle, stream) from ember's caching allocator, and the check that
// turns a cuBLAS status into an ember error.
//
// Note [cuBLAS handles]: a cublasHandle_t is not safe to use from two threads at
// once, so each thread gets its own, created lazily per device and cached; when the
// thread ends its handles go back to a process-wide pool for the next thread (creating
// one costs milliseconds). Before each call the handle is pointed at the current
// stream (cublasSetStream) and then at a workspace of that stream (cublasSetStream
// resets the workspace, so the order matters): the workspace is allocated once per
// (handle, stream) from the caching allocator on that stream and kept for the
// process's life, so steady state makes no cudaMalloc and work on one stream never
// shares scratch memory with work on another. empty_cache() gives the workspaces back
// (release_workspaces); the handles are never destroyed: destroying them at exit, after
// the CUDA context may be gone, would crash.
#pragma once
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "cuda/dynamic_library.h"

namespace ember::cuda::blas {

DynamicLibrary& cublas_library();    // libcublas.so.13
DynamicLibrary& cublaslt_library();  // libcublasLt.so.13

// What one call needs: the handles of the current thread for `device`, set to
// `stream`, and that stream's workspace (also passed to cublasLtMatmul).
struct BlasContext {
  cublasHandle_t handle;
  cublasLtHandle_t lt;
  cudaStream_t stream;
  void* workspace;
  size_t workspace_size;
};

// `device` must be current (a LaunchContext is alive). The cuBLASLt handle is
// created only when `with_lt` (the plain cuBLAS paths never load cuBLASLt).
BlasContext blas_context(int device, cudaStream_t stream, bool with_lt = false);

// Frees the cuBLAS workspaces back to the caching allocator (torch.cuda.empty_cache does):
// this thread's and idle handles' now, other threads' at their next cuBLAS call.
void release_workspaces();

// "CUBLAS_STATUS_NOT_SUPPORTED (the operation or its parameters are not supported)".
const char* status_string(cublasStatus_t status);

// Raises ember::Error (OutOfMemoryError for CUBLAS_STATUS_ALLOC_FAILED) for a failed
// status: "<what>: cuBLAS error <status string> in <call>".
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const std::string& what);

}  // namespace ember::cuda::blas

// EMBER_CUBLAS(library, fn, what, args...): calls fn(args...) of cublas_library() or
// cublaslt_library() and raises for a failed status. `what` (a std::string
// expression, evaluated only on failure) names the op and the shapes.
#define EMBER_CUBLAS(library, fn, what, ...)                                              \
  do {                                                                                    \
    cublasStatus_t ember_cublas_status_ = EMBER_DYNAMIC_FN(library, fn)(__VA_ARGS__);     \
    if (__builtin_expect(ember_cublas_status_ != CUBLAS_STATUS_SUCCESS, 0))               \
      ::ember::cuda::blas::throw_cublas_error(ember_cublas_status_, #fn, (what));         \
  } while (0)
