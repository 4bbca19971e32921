// ember::cuda in a build without the CUDA backend (lib/cuda/ is not compiled):
// is_available() is false, device_count() is 0, and everything that needs a GPU
// raises the same clear error.
#ifndef EMBER_WITH_CUDA
#include "ember/cuda.h"
#include "ember/cuda_graph.h"
#include "ember/error.h"
#include "memory/caching_allocator.h"

namespace ember::cuda {

namespace {
[[noreturn]] void unavailable(const char* what) {
  throw Error(::ember::detail::str(what, ": ember was built without CUDA"));
}
}  // namespace

bool is_built() { return false; }
bool is_available() { return false; }
int device_count() { return 0; }
int current_device() { unavailable("current_device"); }
void set_device(int) { unavailable("set_device"); }
void synchronize(int) { unavailable("synchronize"); }
DeviceProperties get_device_properties(int) { unavailable("get_device_properties"); }
std::pair<int64_t, int64_t> mem_get_info(int) { unavailable("mem_get_info"); }
int device_of_pointer(const void*, const char* what) { unavailable(what); }

DeviceGuard::DeviceGuard(int device) {
  if (device >= 0) unavailable("DeviceGuard");
}
DeviceGuard::~DeviceGuard() = default;

Stream Stream::create(int, int) { unavailable("Stream"); }
int Stream::priority() const { unavailable("Stream.priority"); }
bool Stream::query() const { unavailable("Stream.query"); }
void Stream::synchronize() const { unavailable("Stream.synchronize"); }
void Stream::wait_stream(const Stream&) const { unavailable("Stream.wait_stream"); }
Stream current_stream(int) { unavailable("current_stream"); }
Stream default_stream(int) { unavailable("default_stream"); }
void set_current_stream(const Stream&) { unavailable("set_current_stream"); }
StreamGuard::StreamGuard(const Stream& s) : device_(-1), previous_(s) { unavailable("StreamGuard"); }
StreamGuard::~StreamGuard() = default;

// Nothing can be recorded, so an Event is always "done".
struct Event::Impl {};
Event::Event(bool enable_timing, bool blocking)
    : enable_timing_(enable_timing), blocking_(blocking), impl_(std::make_shared<Impl>()) {}
void Event::record() { unavailable("Event.record"); }
void Event::record(const Stream&) { unavailable("Event.record"); }
void Event::wait(const Stream&) const { unavailable("Event.wait"); }
void Event::wait() const { unavailable("Event.wait"); }
bool Event::query() const { return true; }
void Event::synchronize() const {}
float Event::elapsed_time(const Event&) const { unavailable("Event.elapsed_time"); }

std::vector<std::string> get_arch_list() { return {}; }
void empty_cache() {}  // no device memory to give back
bool can_device_access_peer(int, int) { unavailable("can_device_access_peer"); }

MempoolId graph_pool_handle() { unavailable("graph_pool_handle"); }
bool is_current_stream_capturing() { return false; }
namespace detail {
bool graph_capture_underway() { return false; }
}  // namespace detail
CUDAGraph::CUDAGraph(bool keep_graph) : keep_graph_(keep_graph) {}
CUDAGraph::~CUDAGraph() = default;
void CUDAGraph::capture_begin(MempoolId, const std::string&) { unavailable("CUDAGraph.capture_begin"); }
void CUDAGraph::capture_end() { unavailable("CUDAGraph.capture_end"); }
void CUDAGraph::replay() { unavailable("CUDAGraph.replay"); }
void CUDAGraph::reset() {}
void CUDAGraph::debug_dump(const std::string&) const { unavailable("CUDAGraph.debug_dump"); }

}  // namespace ember::cuda

namespace ember::memory {

CachingAllocator& cuda_allocator(int) { cuda::unavailable("the CUDA caching allocator"); }
CachingAllocator& pinned_host_allocator() { cuda::unavailable("pin_memory"); }
bool is_pinned_host_ptr(const void*) { return false; }

}  // namespace ember::memory

#endif  // EMBER_WITH_CUDA
