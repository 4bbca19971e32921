// cuBLAS/cuBLASLt libraries, per-thread handles and per-stream workspaces
// (Note [cuBLAS handles] in cublas_context.h).
#include "cuda/blas/cublas_context.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "cuda/cuda_check.h"
#include "ember/error.h"
#include "memory/caching_allocator.h"

namespace ember::cuda::blas {

DynamicLibrary& cublas_library() {
  static DynamicLibrary* lib = new DynamicLibrary("cuBLAS", {"libcublas.so.13", "libcublas.so"});
  return *lib;
}

DynamicLibrary& cublaslt_library() {
  static DynamicLibrary* lib =
      new DynamicLibrary("cuBLASLt", {"libcublasLt.so.13", "libcublasLt.so"});
  return *lib;
}

const char* status_string(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED (the library was not initialized)";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED (a resource allocation failed)";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE (an unsupported value or parameter was passed)";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "CUBLAS_STATUS_ARCH_MISMATCH (a feature absent from the device architecture)";
    case CUBLAS_STATUS_MAPPING_ERROR:
      return "CUBLAS_STATUS_MAPPING_ERROR (an access to GPU memory space failed)";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED (the GPU program failed to execute)";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "CUBLAS_STATUS_INTERNAL_ERROR (an internal cuBLAS operation failed)";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED (the operation or its parameters are not supported)";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "unknown cuBLAS status";
}

void throw_cublas_error(cublasStatus_t status, const char* call, const std::string& what) {
  (void)cudaGetLastError();  // a launch failure inside cuBLAS is reported here, not later
  std::string msg = ::ember::detail::str(what, ": cuBLAS error ", status_string(status), " in ",
                                         call);
  if (status == CUBLAS_STATUS_ALLOC_FAILED) throw OutOfMemoryError(msg);
  throw Error(msg);
}

namespace {

// PyTorch's default on Hopper and later (CUBLAS_WORKSPACE_CONFIG=:4096:8), and cuBLAS's
// own recommendation for earlier GPUs.
size_t workspace_size_for(int device) {
  int major = 0;
  EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major >= 9 ? size_t(32) << 20 : size_t(4) << 20;
}

// One device's handles of one thread (while the thread lives), then of the pool.
struct Handles {
  int device = -1;
  cublasHandle_t blas = nullptr;
  cublasLtHandle_t lt = nullptr;
  size_t workspace_size = 0;
  std::unordered_map<cudaStream_t, void*> workspaces;  // allocated on that stream
  uint64_t generation = 0;  // workspaces older than workspace_generation are dropped

  void free_workspaces() {
    for (auto& [stream, ws] : workspaces) memory::cuda_allocator(device).free(ws);
    workspaces.clear();
  }
};

// Bumped by release_workspaces(): a thread's handles drop their workspaces at their
// next use (another thread may be between looking its workspace up and using it, so
// only the owner frees them).
std::atomic<uint64_t> workspace_generation{0};

// Handles of ended threads, by device. Never destroyed (Note [cuBLAS handles]).
struct Pool {
  std::mutex mutex;
  std::unordered_map<int, std::vector<Handles*>> free;

  Handles* take(int device) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      std::vector<Handles*>& list = free[device];
      if (!list.empty()) {
        Handles* h = list.back();
        list.pop_back();
        return h;
      }
    }
    auto h = std::make_unique<Handles>();
    h->device = device;
    EMBER_CUBLAS(cublas_library(), cublasCreate_v2,
                 ::ember::detail::str("creating the cuBLAS handle of cuda:", device), &h->blas);
    h->workspace_size = workspace_size_for(device);
    return h.release();
  }

  void give_back(Handles* h) {
    std::lock_guard<std::mutex> lock(mutex);
    free[h->device].push_back(h);
  }

  // The pooled handles are in no thread's use: their workspaces can go now.
  void free_idle_workspaces() {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto& [device, list] : free)
      for (Handles* h : list) h->free_workspaces();
  }
};

Pool& pool() {
  static Pool* p = new Pool();
  return *p;
}

// This thread's handles, one per device, returned to the pool when the thread ends.
struct ThreadHandles {
  static ThreadHandles& mine() {
    thread_local ThreadHandles handles;
    return handles;
  }
  std::vector<Handles*> by_device;
  ~ThreadHandles() {
    for (Handles* h : by_device)
      if (h) pool().give_back(h);
  }
  Handles& get(int device) {
    if (static_cast<size_t>(device) >= by_device.size()) by_device.resize(device + 1, nullptr);
    if (!by_device[device]) by_device[device] = pool().take(device);
    return *by_device[device];
  }
};

std::string setup_failed(int device) {
  return ::ember::detail::str("setting up cuBLAS on cuda:", device);
}

void* workspace_for(Handles& h, cudaStream_t stream) {
  const uint64_t generation = workspace_generation.load(std::memory_order_acquire);
  if (h.generation != generation) {
    h.free_workspaces();
    h.generation = generation;
  }
  auto it = h.workspaces.find(stream);
  if (it != h.workspaces.end()) return it->second;
  void* ws = memory::cuda_allocator(h.device).allocate(h.workspace_size,
                                                       reinterpret_cast<memory::StreamId>(stream));
  h.workspaces.emplace(stream, ws);
  return ws;
}

}  // namespace

BlasContext blas_context(int device, cudaStream_t stream, bool with_lt) {
  Handles& h = ThreadHandles::mine().get(device);
  void* ws = workspace_for(h, stream);
  EMBER_CUBLAS(cublas_library(), cublasSetStream_v2, setup_failed(device), h.blas, stream);
  // After cublasSetStream, which resets the workspace to cuBLAS's own pool.
  EMBER_CUBLAS(cublas_library(), cublasSetWorkspace_v2, setup_failed(device), h.blas, ws,
               h.workspace_size);
  if (with_lt && !h.lt) EMBER_CUBLAS(cublaslt_library(), cublasLtCreate, setup_failed(device), &h.lt);
  return {h.blas, h.lt, stream, ws, h.workspace_size};
}

void release_workspaces() {
  workspace_generation.fetch_add(1, std::memory_order_acq_rel);
  for (Handles* h : ThreadHandles::mine().by_device)
    if (h) {
      h->free_workspaces();
      h->generation = workspace_generation.load(std::memory_order_acquire);
    }
  pool().free_idle_workspaces();
}

}  // namespace ember::cuda::blas
