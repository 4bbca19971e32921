// cuDNN convolution passes: descriptors, the algorithm (cuDNN's heuristics, or
// measured once per configuration with cudnn_benchmark()), a workspace from ember's
// caching allocator, and the call (conv_algorithm.h).
//
// Math: float32 uses TF32 tensor cores only when cudnn_allow_tf32() (else
// CUDNN_FMA_MATH: full float32); float16/bfloat16 use tensor cores and compute in
// float32; float64 computes in float64. The descriptor's math type is set before
// asking cuDNN for algorithms, so it only offers algorithms of that math (as
// PyTorch relies on); the chosen algorithm's math type is then set for the call.
#include "cuda/dnn/conv_algorithm.h"

#include <algorithm>
#include <climits>
#include <map>
#include <mutex>
#include <vector>

#include "ember/cuda.h"  // cudnn_allow_tf32, cudnn_benchmark
#include "ember/error.h"
#include "ember/ops/factories.h"

namespace ember::cuda::dnn {

namespace {

struct Descriptors {
  TensorDescriptor x, y;
  FilterDescriptor w;
  ConvolutionDescriptor conv;
};

struct Algorithm {
  int algo = 0;  // a cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  size_t workspace = 0;
};

cudnnMathType_t requested_math(DType dtype) {
  switch (dtype) {
    case kFloat32: return cudnn_allow_tf32() ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH;
    case kFloat16:
    case kBFloat16: return CUDNN_TENSOR_OP_MATH;
    default: return CUDNN_DEFAULT_MATH;
  }
}

// An algorithm of math type `got` may serve a request for `want` (exact float32
// must not get a tensor-op algorithm).
bool math_fits(cudnnMathType_t want, cudnnMathType_t got) { return want != CUDNN_FMA_MATH || got == CUDNN_FMA_MATH; }

size_t workspace_size(cudnnHandle_t h, ConvPass pass, const Descriptors& d, int algo, bool* ok) {
  size_t bytes = 0;
  cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
  switch (pass) {
    case ConvPass::Forward:
      st = EMBER_CUDNN_FN(cudnnGetConvolutionForwardWorkspaceSize)(h, d.x.get(), d.w.get(), d.conv.get(), d.y.get(),
                                                                   static_cast<cudnnConvolutionFwdAlgo_t>(algo), &bytes);
      break;
    case ConvPass::BackwardData:
      st = EMBER_CUDNN_FN(cudnnGetConvolutionBackwardDataWorkspaceSize)(
          h, d.w.get(), d.y.get(), d.conv.get(), d.x.get(), static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), &bytes);
      break;
    case ConvPass::BackwardFilter:
      st = EMBER_CUDNN_FN(cudnnGetConvolutionBackwardFilterWorkspaceSize)(
          h, d.x.get(), d.y.get(), d.conv.get(), d.w.get(), static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), &bytes);
      break;
  }
  if (ok) *ok = st == CUDNN_STATUS_SUCCESS;
  else cudnn_check(st, "cudnnGetConvolution*WorkspaceSize");
  return bytes;
}

int algorithm_count(ConvPass pass) {
  switch (pass) {
    case ConvPass::Forward: return CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
    case ConvPass::BackwardData: return CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
    case ConvPass::BackwardFilter: return CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  }
  return 1;
}

// The first usable result of cuDNN's list (best first), as an Algorithm (no workspace yet).
template <typename Perf>
bool first_usable(const Perf* perf, int returned, cudnnMathType_t want, Algorithm& out) {
  for (int i = 0; i < returned; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS || !math_fits(want, perf[i].mathType)) continue;
    out.algo = static_cast<int>(perf[i].algo);
    out.math = perf[i].mathType;
    return true;
  }
  return false;
}

// cuDNN's heuristics (no GPU work, no synchronization).
bool heuristic(cudnnHandle_t h, ConvPass pass, const Descriptors& d, cudnnMathType_t want, Algorithm& out) {
  int returned = 0;
  switch (pass) {
    case ConvPass::Forward: {
      cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
      EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnGetConvolutionForwardAlgorithm_v7)(
          h, d.x.get(), d.w.get(), d.conv.get(), d.y.get(), CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf));
      return first_usable(perf, returned, want, out);
    }
    case ConvPass::BackwardData: {
      cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
      EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnGetConvolutionBackwardDataAlgorithm_v7)(
          h, d.w.get(), d.y.get(), d.conv.get(), d.x.get(), CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &returned, perf));
      return first_usable(perf, returned, want, out);
    }
    case ConvPass::BackwardFilter: {
      cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
      EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnGetConvolutionBackwardFilterAlgorithm_v7)(
          h, d.x.get(), d.y.get(), d.conv.get(), d.w.get(), CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &returned, perf));
      return first_usable(perf, returned, want, out);
    }
  }
  return false;
}

// Workspaces larger than this are not offered to cudnnFind*AlgorithmEx.
constexpr size_t kMaxFindWorkspace = size_t(1) << 30;

// Measures the algorithms on the real buffers (cudnnFind*AlgorithmEx: runs each one,
// synchronizing the device; the output buffer is overwritten, which the pass does
// anyway). The workspace offered is the largest any algorithm asks (up to
// kMaxFindWorkspace), from the caching allocator.
bool measure(cudnnHandle_t h, ConvPass pass, const Descriptors& d, cudnnMathType_t want, void* x, void* w, void* y,
             Device device, Algorithm& out) {
  size_t most = 0;
  for (int a = 0; a < algorithm_count(pass); ++a) {
    bool ok = false;
    size_t bytes = workspace_size(h, pass, d, a, &ok);
    if (ok && bytes <= kMaxFindWorkspace) most = std::max(most, bytes);
  }
  Tensor ws = empty(IntList{static_cast<int64_t>(std::max<size_t>(most, 1))}, TensorOptions(kUInt8).device(device));
  void* wp = ws.data_ptr();
  int returned = 0;
  switch (pass) {
    case ConvPass::Forward: {
      cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
      EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnFindConvolutionForwardAlgorithmEx)(
          h, d.x.get(), x, d.w.get(), w, d.conv.get(), d.y.get(), y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned,
          perf, wp, most));
      return first_usable(perf, returned, want, out);
    }
    case ConvPass::BackwardData: {
      cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
      EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnFindConvolutionBackwardDataAlgorithmEx)(
          h, d.w.get(), w, d.y.get(), y, d.conv.get(), d.x.get(), x, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
          &returned, perf, wp, most));
      return first_usable(perf, returned, want, out);
    }
    case ConvPass::BackwardFilter: {
      cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
      EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnFindConvolutionBackwardFilterAlgorithmEx)(
          h, d.x.get(), x, d.y.get(), y, d.conv.get(), d.w.get(), w, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
          &returned, perf, wp, most));
      return first_usable(perf, returned, want, out);
    }
  }
  return false;
}

// The algorithm cache: one entry per (pass, device, problem, math request, mode).
using Key = std::vector<int64_t>;
std::mutex& cache_mutex() {
  static std::mutex m;
  return m;
}
std::map<Key, Algorithm>& cache() {
  static auto* c = new std::map<Key, Algorithm>;  // leaked: used until exit
  return *c;
}

Key key_of(ConvPass pass, int device, const ConvProblem& p, int64_t batch, cudnnMathType_t math, bool bench) {
  return {static_cast<int64_t>(pass), device, batch, p.c, p.h, p.w, p.k, p.r, p.s, p.oh, p.ow,
          p.stride[0], p.stride[1], p.pad[0], p.pad[1], p.dilation[0], p.dilation[1], p.groups,
          static_cast<int64_t>(p.dtype), static_cast<int64_t>(math), bench ? 1 : 0};
}

// may_measure is false where measuring would overwrite a result being accumulated
// (the filter gradient of a later chunk): heuristics choose then (cached as such).
Algorithm choose(cudnnHandle_t h, ConvPass pass, Descriptors& d, const ConvProblem& p, int64_t batch, void* x,
                 void* w, void* y, int device, bool may_measure) {
  const cudnnMathType_t want = requested_math(p.dtype);
  const bool bench = cudnn_benchmark() && may_measure;
  const Key key = key_of(pass, device, p, batch, want, bench);
  {
    std::lock_guard<std::mutex> lock(cache_mutex());
    auto it = cache().find(key);
    if (it != cache().end()) return it->second;
  }
  d.conv.set_math(want);
  Algorithm a;
  bool found = bench ? measure(h, pass, d, want, x, w, y, Device(DeviceType::CUDA, device), a)
                     : heuristic(h, pass, d, want, a);
  if (!found) a = Algorithm{0, want, 0};  // the implicit-GEMM algorithm 0 of each pass
  d.conv.set_math(a.math);
  a.workspace = workspace_size(h, pass, d, a.algo, nullptr);
  std::lock_guard<std::mutex> lock(cache_mutex());
  cache().emplace(key, a);
  return a;
}

}  // namespace

void run_convolution(ConvPass pass, const ConvProblem& p, void* x, void* w, void* y, cudaStream_t stream) {
  const cudnnDataType_t type = cudnn_data_type(p.dtype, "convolution");
  const cudnnDataType_t compute = p.dtype == kFloat64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  const int device = current_device();
  cudnnHandle_t h = cudnn_handle(stream);
  const int64_t x_image = p.x_image(), y_image = p.y_image();
  EMBER_CHECK(x_image <= INT_MAX && y_image <= INT_MAX, "cuDNN convolution: one image of ", x_image, " or ", y_image,
              " elements exceeds cuDNN's 32-bit sizes");
  const int64_t chunk = std::max<int64_t>(1, std::min(p.n, INT_MAX / std::max<int64_t>({x_image, y_image, 1})));
  const int64_t itemsize = static_cast<int64_t>(ember::itemsize(p.dtype));
  Descriptors d;
  d.w.set(type, p.k, p.c / p.groups, p.r, p.s);
  d.conv.set(p.pad, p.stride, p.dilation, p.groups, compute);
  const double one = 1.0, zero = 0.0;
  const float one_f = 1.0f, zero_f = 0.0f;
  const bool dbl = p.dtype == kFloat64;
  const void* alpha = dbl ? static_cast<const void*>(&one) : static_cast<const void*>(&one_f);
  for (int64_t n0 = 0; n0 < p.n; n0 += chunk) {
    const int64_t batch = std::min(chunk, p.n - n0);
    d.x.set(type, batch, p.c, p.h, p.w);
    d.y.set(type, batch, p.k, p.oh, p.ow);
    char* xc = static_cast<char*>(x) + n0 * x_image * itemsize;
    char* yc = static_cast<char*>(y) + n0 * y_image * itemsize;
    // Later chunks add their filter gradient to the earlier ones'.
    const bool accumulate = pass == ConvPass::BackwardFilter && n0 > 0;
    const Algorithm a = choose(h, pass, d, p, batch, xc, w, yc, device, !accumulate);
    d.conv.set_math(a.math);
    const void* beta = accumulate ? (dbl ? static_cast<const void*>(&one) : static_cast<const void*>(&one_f))
                                  : (dbl ? static_cast<const void*>(&zero) : static_cast<const void*>(&zero_f));
    // The workspace comes from the caching allocator on this stream; freeing it at
    // the end of the scope lets the next op on the stream reuse it in order.
    Tensor ws;
    void* wp = nullptr;
    if (a.workspace > 0) {
      ws = empty(IntList{static_cast<int64_t>(a.workspace)}, TensorOptions(kUInt8).device(Device(DeviceType::CUDA, device)));
      wp = ws.data_ptr();
    }
    switch (pass) {
      case ConvPass::Forward:
        EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnConvolutionForward)(
            h, alpha, d.x.get(), xc, d.w.get(), w, d.conv.get(), static_cast<cudnnConvolutionFwdAlgo_t>(a.algo), wp,
            a.workspace, beta, d.y.get(), yc));
        break;
      case ConvPass::BackwardData:
        EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnConvolutionBackwardData)(
            h, alpha, d.w.get(), w, d.y.get(), yc, d.conv.get(), static_cast<cudnnConvolutionBwdDataAlgo_t>(a.algo),
            wp, a.workspace, beta, d.x.get(), xc));
        break;
      case ConvPass::BackwardFilter:
        EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnConvolutionBackwardFilter)(
            h, alpha, d.x.get(), xc, d.y.get(), yc, d.conv.get(), static_cast<cudnnConvolutionBwdFilterAlgo_t>(a.algo),
            wp, a.workspace, beta, d.w.get(), w));
        break;
    }
  }
}

}  // namespace ember::cuda::dnn
