// ember::cuda: CUDA devices, streams, events and device memory (DESIGN.md, Streams).
//
// Every CUDA device has a current stream per thread (the default stream until set);
// ops queue their work on it and the host waits only where a value must reach it
// or when asked (synchronize(), Stream::synchronize(), Event::synchronize()).
//
// In a build without CUDA, or on a machine without a GPU, is_available() is false,
// device_count() is 0, and every call that needs a GPU raises ember::Error saying
// which ("ember was built without CUDA" / "no CUDA GPU is available").
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/memory.h"

namespace ember::cuda {

bool is_built();      // compiled with the CUDA backend
bool is_available();  // built, and at least one GPU is usable
int device_count();   // 0 without CUDA or without a GPU
int current_device();
void set_device(int device);
// Waits until all work queued on every stream of `device` (-1: the current one) is done.
void synchronize(int device = -1);

// What a GPU is (torch.cuda.get_device_properties' fields).
struct DeviceProperties {
  std::string name;                 // "NVIDIA H100 80GB HBM3"
  int major = 0, minor = 0;         // compute capability
  int64_t total_memory = 0;         // bytes
  int multi_processor_count = 0;
  int max_threads_per_multi_processor = 0;
  int warp_size = 0;
  int64_t L2_cache_size = 0;        // bytes
  bool is_integrated = false;
  bool is_multi_gpu_board = false;
  std::string uuid;                 // "GPU-xxxxxxxx-xxxx-..."
  int pci_bus_id = 0, pci_device_id = 0, pci_domain_id = 0;
};
DeviceProperties get_device_properties(int device = -1);
// Free and total device memory in bytes, as the driver reports them (cudaMemGetInfo):
// memory the caching allocator holds counts as used.
std::pair<int64_t, int64_t> mem_get_info(int device = -1);

// The device (index) whose memory `ptr` points into, for memory that CUDA kernels can
// read: device memory, managed memory or a CUDA-registered host pointer of that device.
// A ValueError naming `what` for anything else (plain host memory, a freed pointer).
int device_of_pointer(const void* ptr, const char* what);

// Makes `device` current for a scope (-1: leaves the current device as it is).
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

// A handle to a CUDA stream (cheap to copy). Streams made by create() come from a
// per-device pool and live as long as the process, so a handle never dangles.
class Stream {
 public:
  // A stream of `device` (-1: the current one) from the pool. priority 0 is the
  // normal priority; a negative priority asks for a high-priority stream.
  static Stream create(int device = -1, int priority = 0);
  // Wraps a cudaStream_t that the caller owns (0: the default stream).
  static Stream wrap(int device, void* handle) { return Stream(device, handle); }

  int device() const { return device_; }
  void* handle() const { return handle_; }  // the cudaStream_t
  // The caching allocator's name for this stream: the handle as an integer, 0 for
  // the default stream.
  uintptr_t id() const { return reinterpret_cast<uintptr_t>(handle_); }
  int priority() const;
  bool query() const;  // true when all work queued on it is done
  void synchronize() const;
  // Work queued on this stream from now on waits for the work queued on `other` so far.
  void wait_stream(const Stream& other) const;

  bool operator==(const Stream& o) const { return device_ == o.device_ && handle_ == o.handle_; }
  bool operator!=(const Stream& o) const { return !(*this == o); }

 private:
  Stream(int device, void* handle) : device_(device), handle_(handle) {}
  int device_;
  void* handle_;
};

// This thread's current stream of `device` (-1: the current device).
Stream current_stream(int device = -1);
Stream default_stream(int device = -1);
// Makes `stream` this thread's current stream of its device.
void set_current_stream(const Stream& stream);

// Makes a stream and its device current for a scope, then restores both.
class StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  DeviceGuard device_;
  Stream previous_;
};

// A CUDA event: a marker in a stream's queue. Copies share the same event. The
// CUDA event is made at the first record(), on the recording stream's device, so
// making an Event needs no GPU.
class Event {
 public:
  explicit Event(bool enable_timing = false, bool blocking = false);
  void record();  // on the current stream of the current device
  void record(const Stream& stream);
  // Work queued on `stream` from now on waits for this event (no-op if never recorded).
  void wait(const Stream& stream) const;
  void wait() const;  // the current stream of the current device
  bool query() const;  // true when the recorded work is done (or nothing was recorded)
  void synchronize() const;
  // Milliseconds between this event and `end` (both recorded, with enable_timing).
  float elapsed_time(const Event& end) const;

 private:
  struct Impl;
  bool enable_timing_;
  bool blocking_;
  std::shared_ptr<Impl> impl_;
};

// Numerics switches of the CUDA matrix products and convolutions, as PyTorch's
// torch.backends.cuda.matmul.allow_tf32 (default false), torch.backends.cudnn.allow_tf32
// (default true) and torch.backends.cudnn.benchmark (default false). Process-wide
// settings that also work (and are kept) in a build without CUDA (lib/core/backend_flags.cpp).
// With matmul_allow_tf32, float32 matrix products may round their inputs to TensorFloat-32
// (10 mantissa bits) inside the tensor cores.
bool matmul_allow_tf32();
void set_matmul_allow_tf32(bool allow);
bool cudnn_allow_tf32();
void set_cudnn_allow_tf32(bool allow);
bool cudnn_benchmark();
void set_cudnn_benchmark(bool benchmark);

// The caching allocator of `device` (-1: the current one); ember::memory_stats(Device)
// reads the same numbers.
MemoryStats memory_stats(int device = -1);
int64_t memory_allocated(int device = -1);
int64_t max_memory_allocated(int device = -1);
int64_t memory_reserved(int device = -1);
int64_t max_memory_reserved(int device = -1);
void reset_peak_memory_stats(int device = -1);
std::string memory_summary(int device = -1);
// Returns the cached, unused blocks of every device to CUDA (nothing while a CUDA
// graph capture is underway: memory cannot be given back then).
void empty_cache();
// Zeroes the allocator's counters that only grow (num_allocs, num_frees, ...).
void reset_accumulated_memory_stats(int device = -1);
// Caps what the caching allocator of `device` may reserve at fraction * its total
// memory: a request past it raises OutOfMemoryError (after the cache is released) as
// if the GPU were full. fraction in [0, 1] (1: the whole GPU, the default), else
// ValueError. torch.cuda.set_per_process_memory_fraction.
void set_per_process_memory_fraction(double fraction, int device = -1);
double get_per_process_memory_fraction(int device = -1);

// The GPU architectures this build's kernels were compiled for, as PyTorch lists them:
// "sm_90" for machine code, "compute_90" for PTX the driver can compile for newer GPUs.
// Empty when no GPU is available (as torch.cuda.get_arch_list()).
std::vector<std::string> get_arch_list();
// Whether `device` can access `peer`'s memory directly (cudaDeviceCanAccessPeer).
bool can_device_access_peer(int device, int peer);

}  // namespace ember::cuda

namespace ember {

// torch.set_float32_matmul_precision: "highest" (float32 products in full float32, the
// default), "high" or "medium" (TensorFloat-32 allowed). The same setting as
// cuda::matmul_allow_tf32(): setting that to true makes the precision "high", to false
// "highest". Other strings raise ValueError.
void set_float32_matmul_precision(const std::string& precision);
std::string get_float32_matmul_precision();

}  // namespace ember
