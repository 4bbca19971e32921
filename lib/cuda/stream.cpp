// CUDA streams: a pool of streams per device and priority (created once, never
// destroyed, handed out round robin, as PyTorch does), and this thread's current
// stream of each device.
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "cuda/cuda_check.h"
#include "cuda/device_error.h"
#include "ember/cuda.h"
#include "ember/error.h"

namespace ember::cuda {

namespace {

constexpr int kStreamsPerPool = 32;

struct StreamPool {
  std::once_flag created;
  std::array<cudaStream_t, kStreamsPerPool> streams{};
  std::atomic<unsigned> next{0};
};

// pools[device][0]: normal priority; pools[device][1]: high priority.
std::vector<std::array<StreamPool, 2>>& pools() {
  // Leaked on purpose: streams outlive every tensor, even during static destruction.
  static auto* p = new std::vector<std::array<StreamPool, 2>>(device_count());
  return *p;
}

cudaStream_t stream_from_pool(int device, bool high_priority) {
  StreamPool& pool = pools()[device][high_priority ? 1 : 0];
  std::call_once(pool.created, [&] {
    DeviceGuard guard(device);
    int least = 0, greatest = 0;
    EMBER_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    for (cudaStream_t& s : pool.streams)
      EMBER_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking,
                                                    high_priority ? greatest : least));
  });
  return pool.streams[pool.next.fetch_add(1) % kStreamsPerPool];
}

// This thread's current stream of each device; nullptr is the default stream.
std::vector<cudaStream_t>& current_streams() {
  thread_local std::vector<cudaStream_t> streams(device_count(), nullptr);
  return streams;
}

cudaStream_t raw(const Stream& s) { return static_cast<cudaStream_t>(s.handle()); }

}  // namespace

Stream Stream::create(int device, int priority) {
  int d = detail::resolve_device(device, "Stream");
  return Stream(d, stream_from_pool(d, priority < 0));
}

int Stream::priority() const {
  DeviceGuard guard(device_);
  int p = 0;
  EMBER_CUDA_CHECK(cudaStreamGetPriority(raw(*this), &p));
  return p;
}

bool Stream::query() const {
  DeviceGuard guard(device_);
  return EMBER_CUDA_QUERY(cudaStreamQuery(raw(*this)));
}

void Stream::synchronize() const {
  DeviceGuard guard(device_);
  EMBER_CUDA_CHECK(cudaStreamSynchronize(raw(*this)));
  raise_device_error(device_);
}

void Stream::wait_stream(const Stream& other) const {
  if (other == *this) return;
  Event event;
  event.record(other);
  event.wait(*this);
}

Stream current_stream(int device) {
  int d = detail::resolve_device(device, "current_stream");
  return Stream::wrap(d, current_streams()[d]);
}

Stream default_stream(int device) {
  return Stream::wrap(detail::resolve_device(device, "default_stream"), nullptr);
}

void set_current_stream(const Stream& stream) {
  int d = detail::resolve_device(stream.device(), "set_current_stream");
  current_streams()[d] = raw(stream);
}

StreamGuard::StreamGuard(const Stream& stream)
    : device_(stream.device()), previous_(current_stream(stream.device())) {
  set_current_stream(stream);
}

StreamGuard::~StreamGuard() { current_streams()[previous_.device()] = raw(previous_); }

}  // namespace ember::cuda
