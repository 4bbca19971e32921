// The CUDA instantiations of the caching allocator (lib/memory/caching_allocator.h):
// one per device over cudaMalloc, and one for page-locked host memory over
// cudaHostAlloc. Both mark the end of a stream's use of a block with a cudaEvent.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cuda/blas/cublas_context.h"
#include "cuda/cuda_allocator.h"
#include "cuda/cuda_check.h"
#include "ember/cuda.h"
#include "ember/cuda_graph.h"
#include "memory/caching_allocator.h"

namespace ember::memory {

namespace {

// An event recorded on a stream, with the device it belongs to.
struct StreamEvent {
  int device;
  cudaEvent_t event;
};

EventId record_stream_event(int device, cudaStream_t stream) {
  cuda::DeviceGuard guard(device);
  auto* e = new StreamEvent{device, nullptr};
  try {
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e->event, cudaEventDisableTiming));
    EMBER_CUDA_CHECK(cudaEventRecord(e->event, stream));
  } catch (...) {
    if (e->event) (void)cudaEventDestroy(e->event);
    delete e;
    throw;
  }
  return reinterpret_cast<EventId>(e);
}

// Records an existing event on a stream of its own device; false for another device's.
bool rerecord_stream_event(EventId id, int device, cudaStream_t stream) {
  auto* e = reinterpret_cast<StreamEvent*>(id);
  if (e->device != device) return false;
  cuda::DeviceGuard guard(device);
  EMBER_CUDA_CHECK(cudaEventRecord(e->event, stream));
  return true;
}

void synchronize_stream_event(EventId id) {
  auto* e = reinterpret_cast<StreamEvent*>(id);
  cuda::DeviceGuard guard(e->device);
  EMBER_CUDA_CHECK(cudaEventSynchronize(e->event));
}

bool stream_event_done(EventId id) {
  auto* e = reinterpret_cast<StreamEvent*>(id);
  cuda::DeviceGuard guard(e->device);
  return EMBER_CUDA_QUERY(cudaEventQuery(e->event));
}

void release_stream_event(EventId id) {
  auto* e = reinterpret_cast<StreamEvent*>(id);
  {
    cuda::DeviceGuard guard(e->device);
    (void)cudaEventDestroy(e->event);
  }
  delete e;
}

// nullptr when CUDA says out of memory (the caching allocator then frees its cache
// and retries); any other failure raises.
void* checked_alloc(cudaError_t err, void* ptr, const char* call) {
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    return nullptr;
  }
  cuda::detail::check(err, call, __FILE__, __LINE__);
  return ptr;
}

class CudaRawAllocator final : public RawAllocator {
 public:
  explicit CudaRawAllocator(int device) : device_(device), name_("cuda:" + std::to_string(device)) {}

  void* raw_alloc(size_t nbytes) override {
    cuda::DeviceGuard guard(device_);
    void* p = nullptr;
    // cudaMalloc is "potentially unsafe" while a stream captures in the global mode;
    // the allocator's own call is safe (the memory belongs to the capture's private
    // pool), so this thread relaxes the check for it, as PyTorch's allocator does.
    const bool capturing = cuda::detail::graph_capture_underway();
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    if (capturing) EMBER_CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    // Two statements: as one call's arguments, `p` could be read before cudaMalloc
    // sets it (the order of evaluation is unspecified; GCC reads it first).
    cudaError_t err = cudaMalloc(&p, nbytes);
    if (capturing) (void)cudaThreadExchangeStreamCaptureMode(&mode);
    return checked_alloc(err, p, "cudaMalloc");
  }
  void raw_free(void* ptr) override {
    cuda::DeviceGuard guard(device_);
    EMBER_CUDA_CHECK(cudaFree(ptr));
  }
  // The allocator's streams are streams of its device (Tensor::record_stream checks).
  EventId record_event(StreamId stream) override {
    return record_stream_event(device_, reinterpret_cast<cudaStream_t>(stream));
  }
  bool event_done(EventId event) override { return stream_event_done(event); }
  void synchronize_event(EventId event) override { synchronize_stream_event(event); }
  bool rerecord_event(EventId event, StreamId stream) override {
    return rerecord_stream_event(event, device_, reinterpret_cast<cudaStream_t>(stream));
  }
  void release_event(EventId event) override { release_stream_event(event); }
  const char* device_name() const override { return name_.c_str(); }

 private:
  int device_;
  std::string name_;
};

// The pinned allocator serves every device, so its stream ids must say which
// device's default stream a 0 handle means: device + 1 stands for it (no stream
// handle is that small).
constexpr StreamId kMaxDefaultStreamId = 4096;

StreamId pinned_stream_id(const cuda::Stream& stream) {
  return stream.id() ? stream.id() : static_cast<StreamId>(stream.device() + 1);
}

class PinnedHostRawAllocator final : public RawAllocator {
 public:
  void* raw_alloc(size_t nbytes) override {
    cuda::detail::require_gpu("pin_memory");
    void* p = nullptr;
    cudaError_t err = cudaHostAlloc(&p, nbytes, cudaHostAllocDefault);  // before reading p
    return checked_alloc(err, p, "cudaHostAlloc");
  }
  void raw_free(void* ptr) override { EMBER_CUDA_CHECK(cudaFreeHost(ptr)); }
  // A copy may use the block on a stream of any device: the event goes there.
  EventId record_event(StreamId stream) override {
    if (stream <= kMaxDefaultStreamId)  // device + 1: that device's default stream
      return record_stream_event(static_cast<int>(stream) - 1, nullptr);
    auto s = reinterpret_cast<cudaStream_t>(stream);
    int device = 0;
    EMBER_CUDA_CHECK(cudaStreamGetDevice(s, &device));
    return record_stream_event(device, s);
  }
  bool event_done(EventId event) override { return stream_event_done(event); }
  void synchronize_event(EventId event) override { synchronize_stream_event(event); }
  bool rerecord_event(EventId event, StreamId stream) override {
    if (stream <= kMaxDefaultStreamId)
      return rerecord_stream_event(event, static_cast<int>(stream) - 1, nullptr);
    auto s = reinterpret_cast<cudaStream_t>(stream);
    int device = 0;
    EMBER_CUDA_CHECK(cudaStreamGetDevice(s, &device));
    return rerecord_stream_event(event, device, s);
  }
  void release_event(EventId event) override { release_stream_event(event); }
  const char* device_name() const override { return "cpu:pinned"; }
};

// PyTorch's policy for device memory (mid-size requests share 20 MiB segments), tuned
// by EMBER_CUDA_ALLOC_CONF, or else PyTorch's PYTORCH_CUDA_ALLOC_CONF / PYTORCH_ALLOC_CONF,
// so a program's existing setting carries over. Options ember does not implement are
// named on stderr once; a malformed setting raises at the first CUDA allocation.
AllocatorSettings settings_from_environment() {
  AllocatorSettings settings;
  settings.large_segments = true;
  for (const char* name : {"EMBER_CUDA_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"}) {
    const char* conf = std::getenv(name);
    if (!conf) continue;
    std::vector<std::string> ignored;
    settings = parse_allocator_settings(conf, settings, &ignored);
    for (const std::string& key : ignored)
      std::fprintf(stderr, "ember: warning: %s option '%s' is not implemented by ember's CUDA "
                   "allocator and has no effect\n", name, key.c_str());
    break;
  }
  return settings;
}

}  // namespace

CachingAllocator& cuda_allocator(int device) {
  int d = cuda::detail::resolve_device(device, "the CUDA caching allocator");
  // Leaked on purpose, like the CPU allocator: tensors freed during static
  // destruction still return their memory here.
  static auto* allocators = [] {
    AllocatorSettings settings = settings_from_environment();
    auto* v = new std::vector<std::unique_ptr<CachingAllocator>>();
    for (int i = 0; i < cuda::device_count(); ++i) {
      v->push_back(std::make_unique<CachingAllocator>(std::make_unique<CudaRawAllocator>(i)));
      v->back()->configure(settings);
    }
    return v;
  }();
  return *(*allocators)[d];
}

CachingAllocator& pinned_host_allocator() {
  static auto* allocator = new CachingAllocator(std::make_unique<PinnedHostRawAllocator>());
  return *allocator;
}

bool record_pinned_use(void* block, const cuda::Stream& stream) {
  CachingAllocator& pinned = pinned_host_allocator();
  if (!pinned.owns(block)) return false;
  pinned.record_stream(block, pinned_stream_id(stream));
  return true;
}

bool is_pinned_host_ptr(const void* ptr) {
  if (!ptr || !cuda::is_available()) return false;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

}  // namespace ember::memory

namespace ember::cuda {

void empty_cache() {
  if (device_count() == 0) return;
  blas::release_workspaces();  // first, so their blocks are among what goes back
  for (int d = 0; d < device_count(); ++d) memory::cuda_allocator(d).empty_cache();
}

}  // namespace ember::cuda
