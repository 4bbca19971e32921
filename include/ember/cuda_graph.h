// ember::cuda::CUDAGraph: records the CUDA work queued on a stream once and replays
// it with one launch (torch.cuda.CUDAGraph). Replays rerun the same kernels on the
// same memory: inputs are refreshed by copying into the tensors the capture read,
// and results are read from the tensors it wrote.
//
//   auto s = ember::cuda::Stream::create();
//   { ember::cuda::StreamGuard guard(s); y = model(x); }            // warm up first
//   ember::cuda::CUDAGraph g;
//   { ember::cuda::StreamGuard guard(s); g.capture_begin(); y = model(x); g.capture_end(); }
//   x.copy_(next_batch); g.replay();                               // y holds the result
//
// The memory a capture allocates comes from a private pool of the caching allocator
// that belongs to the graph until reset() (several graphs may share one pool:
// graph_pool_handle()). What cannot be captured raises when tried: work that makes the
// host wait (item(), nonzero(), printing a CUDA tensor), capture on the default
// stream, and random numbers on the GPU (ember's generators hand each call its
// counter on the host, so every replay would repeat the captured draw).
#pragma once
#include <cstdint>
#include <string>
#include <utility>

namespace ember::cuda {

// A memory pool id as PyTorch writes it: (id, 0). (0, 0) means "a new pool".
using MempoolId = std::pair<uint64_t, uint64_t>;

// A fresh pool id for graphs that should share memory: pass it to capture_begin of
// each (their replays must then run in the order they were captured).
MempoolId graph_pool_handle();

// Whether the current stream of the current device is capturing a graph (false
// without a GPU).
bool is_current_stream_capturing();

class CUDAGraph {
 public:
  // keep_graph: keep the captured cudaGraph_t after instantiation (debug_dump needs it).
  explicit CUDAGraph(bool keep_graph = false);
  ~CUDAGraph();
  CUDAGraph(const CUDAGraph&) = delete;
  CUDAGraph& operator=(const CUDAGraph&) = delete;

  // Starts capturing the work queued on the current stream, which must not be the
  // device's default stream. capture_error_mode: "global" (CUDA's default: calls
  // unsafe during capture fail in every thread), "thread_local" or "relaxed".
  void capture_begin(MempoolId pool = {0, 0}, const std::string& capture_error_mode = "global");
  // Ends the capture (on the stream it began on) and makes the graph ready to replay.
  void capture_end();
  // Queues the whole graph on the current stream.
  void replay();
  // Destroys the graph and gives its pool back (tensors made during capture stay valid).
  void reset();
  MempoolId pool() const { return {pool_, 0}; }
  // Writes the captured graph as Graphviz text (needs keep_graph / enable_debug_mode()).
  void enable_debug_mode() { keep_graph_ = true; }
  void debug_dump(const std::string& path) const;

 private:
  bool keep_graph_;
  int device_ = -1;
  void* capture_stream_ = nullptr;  // cudaStream_t while capturing
  bool capturing_ = false;
  uint64_t pool_ = 0;   // the allocator's private pool (0: none yet)
  void* graph_ = nullptr;  // cudaGraph_t (kept only with keep_graph)
  void* exec_ = nullptr;   // cudaGraphExec_t
};

namespace detail {
// Whether any CUDA graph capture is underway in the process (a relaxed atomic read):
// the generators and the raw allocator ask before doing what capture forbids.
bool graph_capture_underway();
}  // namespace detail

}  // namespace ember::cuda
