// CUDA graphs (ember/cuda_graph.h): capture on a side stream into a private memory
// pool of the caching allocator (Note [Private pools] in lib/memory/caching_allocator.cpp),
// instantiate once, replay with one launch.
#include <atomic>
#include <cstdio>

#include "cuda/cuda_check.h"
#include "ember/cuda.h"
#include "ember/cuda_graph.h"
#include "ember/error.h"
#include "memory/caching_allocator.h"

namespace ember::cuda {

namespace {

std::atomic<int> captures_underway{0};
std::atomic<uint64_t> next_pool_id{1};

cudaStreamCaptureMode capture_mode(const std::string& mode) {
  if (mode == "global" || mode == "default") return cudaStreamCaptureModeGlobal;
  if (mode == "thread_local") return cudaStreamCaptureModeThreadLocal;
  if (mode == "relaxed") return cudaStreamCaptureModeRelaxed;
  throw ValueError(::ember::detail::str(
      "CUDAGraph.capture_begin: capture_error_mode must be 'global', 'thread_local' or "
      "'relaxed', got '", mode, "'"));
}

}  // namespace

namespace detail {
bool graph_capture_underway() { return captures_underway.load(std::memory_order_relaxed) > 0; }
}  // namespace detail

MempoolId graph_pool_handle() {
  detail::require_gpu("graph_pool_handle");
  return {next_pool_id.fetch_add(1), 0};
}

bool is_current_stream_capturing() {
  if (!is_available()) return false;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  EMBER_CUDA_CHECK(cudaStreamIsCapturing(static_cast<cudaStream_t>(current_stream().handle()), &status));
  return status == cudaStreamCaptureStatusActive;
}

CUDAGraph::CUDAGraph(bool keep_graph) : keep_graph_(keep_graph) {}

CUDAGraph::~CUDAGraph() {
  try {
    reset();
  } catch (...) {
    // A destructor must not throw: a broken context reports itself at the next call.
  }
}

void CUDAGraph::capture_begin(MempoolId pool, const std::string& capture_error_mode) {
  detail::require_gpu("CUDAGraph.capture_begin");
  EMBER_CHECK(!capturing_, "CUDAGraph.capture_begin: this graph is already capturing");
  EMBER_CHECK(exec_ == nullptr,
              "CUDAGraph.capture_begin: this CUDAGraph already holds a captured graph; make a "
              "new CUDAGraph to capture another (or call reset() first)");
  cudaStreamCaptureMode mode = capture_mode(capture_error_mode);
  Stream stream = current_stream();
  EMBER_CHECK(stream.id() != 0,
              "CUDAGraph.capture_begin: CUDA graphs must be captured on a non-default stream "
              "(with ember.cuda.stream(ember.cuda.Stream()): ...); replaying on the default "
              "stream afterwards is fine");
  EMBER_CHECK(pool.second == 0, "CUDAGraph.capture_begin: the pool id must be (id, 0) as "
              "graph_pool_handle() or another graph's pool() gives it, got (", pool.first, ", ",
              pool.second, ")");
  const uint64_t pool_id = pool.first != 0 ? pool.first : next_pool_id.fetch_add(1);
  memory::CachingAllocator& allocator = memory::cuda_allocator(stream.device());
  // Wait for the work already queued: a capture must not depend on uncaptured work
  // through memory the allocator may reuse, and errors of earlier work surface here.
  stream.synchronize();
  allocator.retain_pool(pool_id);
  allocator.begin_capture(stream.id(), pool_id);
  captures_underway.fetch_add(1);
  cudaError_t err = cudaStreamBeginCapture(static_cast<cudaStream_t>(stream.handle()), mode);
  if (err != cudaSuccess) {
    captures_underway.fetch_sub(1);
    allocator.end_capture(stream.id());
    allocator.release_pool(pool_id);
    detail::check(err, "cudaStreamBeginCapture", __FILE__, __LINE__);
  }
  device_ = stream.device();
  capture_stream_ = stream.handle();
  pool_ = pool_id;
  capturing_ = true;
}

void CUDAGraph::capture_end() {
  EMBER_CHECK(capturing_, "CUDAGraph.capture_end: capture_begin was not called");
  Stream stream = current_stream(device_);
  EMBER_CHECK(stream.handle() == capture_stream_,
              "CUDAGraph.capture_end: the capture must end on the stream it began on");
  auto s = static_cast<cudaStream_t>(capture_stream_);
  cudaGraph_t graph = nullptr;
  cudaError_t err = cudaStreamEndCapture(s, &graph);
  capturing_ = false;
  captures_underway.fetch_sub(1);
  memory::CachingAllocator& allocator = memory::cuda_allocator(device_);
  allocator.end_capture(stream.id());
  if (err != cudaSuccess || graph == nullptr) {
    allocator.release_pool(pool_);
    pool_ = 0;
    if (err == cudaSuccess) err = cudaErrorStreamCaptureInvalidated;
    (void)cudaGetLastError();
    throw Error(::ember::detail::str(
        "CUDAGraph.capture_end: the capture failed (", cudaGetErrorString(err),
        "). Something in the captured region made the host wait for the GPU (item(), "
        "nonzero(), a CPU copy, printing a CUDA tensor), used another stream without "
        "joining it back, or drew random numbers on the GPU"));
  }
  cudaGraphExec_t exec = nullptr;
  err = cudaGraphInstantiate(&exec, graph, 0);
  if (err != cudaSuccess) {
    (void)cudaGraphDestroy(graph);
    allocator.release_pool(pool_);
    pool_ = 0;
    detail::check(err, "cudaGraphInstantiate", __FILE__, __LINE__);
  }
  exec_ = exec;
  if (keep_graph_) {
    graph_ = graph;
  } else {
    EMBER_CUDA_CHECK(cudaGraphDestroy(graph));
  }
}

void CUDAGraph::replay() {
  EMBER_CHECK(exec_ != nullptr, "CUDAGraph.replay: nothing was captured (call capture_begin "
              "and capture_end first)");
  DeviceGuard guard(device_);
  EMBER_CUDA_CHECK(cudaGraphLaunch(static_cast<cudaGraphExec_t>(exec_),
                                   static_cast<cudaStream_t>(current_stream(device_).handle())));
}

void CUDAGraph::reset() {
  EMBER_CHECK(!capturing_, "CUDAGraph.reset: the graph is still capturing (call capture_end)");
  if (exec_ == nullptr && graph_ == nullptr && pool_ == 0) return;
  DeviceGuard guard(device_);
  if (exec_) EMBER_CUDA_CHECK(cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec_)));
  exec_ = nullptr;
  if (graph_) EMBER_CUDA_CHECK(cudaGraphDestroy(static_cast<cudaGraph_t>(graph_)));
  graph_ = nullptr;
  if (pool_ != 0) memory::cuda_allocator(device_).release_pool(pool_);
  pool_ = 0;
}

void CUDAGraph::debug_dump(const std::string& path) const {
  EMBER_CHECK(graph_ != nullptr, "CUDAGraph.debug_dump: no graph kept; call enable_debug_mode() "
              "before capture_begin");
  EMBER_CUDA_CHECK(cudaGraphDebugDotPrint(static_cast<cudaGraph_t>(graph_), path.c_str(),
                                          cudaGraphDebugDotFlagsVerbose));
}

}  // namespace ember::cuda
