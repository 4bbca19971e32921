// CUDA events. Copies of an Event share one Impl; its cudaEvent_t is made at the
// first record(), on the device of the recording stream, and destroyed with the
// last copy.
#include "cuda/cuda_check.h"
#include "cuda/device_error.h"
#include "ember/cuda.h"
#include "ember/error.h"

namespace ember::cuda {

struct Event::Impl {
  int device = -1;
  cudaEvent_t event = nullptr;  // nullptr until the first record()

  ~Impl() {
    if (!event) return;
    try {
      DeviceGuard guard(device);
      (void)cudaEventDestroy(event);
    } catch (...) {  // a destructor must not throw (the runtime may be shutting down)
    }
  }
};

Event::Event(bool enable_timing, bool blocking)
    : enable_timing_(enable_timing), blocking_(blocking), impl_(std::make_shared<Impl>()) {}

void Event::record() { record(current_stream()); }

void Event::record(const Stream& stream) {
  DeviceGuard guard(stream.device());
  if (!impl_->event) {
    unsigned flags = (enable_timing_ ? cudaEventDefault : cudaEventDisableTiming) |
                     (blocking_ ? cudaEventBlockingSync : 0u);
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&impl_->event, flags));
    impl_->device = cuda::current_device();
  }
  EMBER_CHECK(impl_->device == cuda::current_device(), "Event.record: the event was made on cuda:",
              impl_->device, " and cannot be recorded on a stream of cuda:", cuda::current_device());
  EMBER_CUDA_CHECK(cudaEventRecord(impl_->event, static_cast<cudaStream_t>(stream.handle())));
}

void Event::wait() const { wait(current_stream()); }

void Event::wait(const Stream& stream) const {
  if (!impl_->event) return;
  DeviceGuard guard(stream.device());
  EMBER_CUDA_CHECK(
      cudaStreamWaitEvent(static_cast<cudaStream_t>(stream.handle()), impl_->event, 0));
}

bool Event::query() const {
  if (!impl_->event) return true;
  DeviceGuard guard(impl_->device);
  return EMBER_CUDA_QUERY(cudaEventQuery(impl_->event));
}

void Event::synchronize() const {
  if (!impl_->event) return;
  DeviceGuard guard(impl_->device);
  EMBER_CUDA_CHECK(cudaEventSynchronize(impl_->event));
  raise_device_error(impl_->device);
}

float Event::elapsed_time(const Event& end) const {
  EMBER_CHECK(enable_timing_ && end.enable_timing_,
              "Event.elapsed_time: both events must be made with enable_timing=True");
  EMBER_CHECK(impl_->event && end.impl_->event,
              "Event.elapsed_time: both events must be recorded first");
  DeviceGuard guard(impl_->device);
  float ms = 0;
  EMBER_CUDA_CHECK(cudaEventElapsedTime(&ms, impl_->event, end.impl_->event));
  return ms;
}

}  // namespace ember::cuda
