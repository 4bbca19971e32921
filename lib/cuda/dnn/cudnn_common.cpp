// cuDNN library, handles, errors and descriptors (cudnn_common.h).
#include "cuda/dnn/cudnn_common.h"

#include <climits>
#include <mutex>
#include <vector>

#include "ember/cuda.h"
#include "ember/error.h"

namespace ember::cuda::dnn {

namespace {

// libcudnn.so.9 opens its sub-libraries (libcudnn_cnn.so.9, ...) itself, by bare
// name: the loader finds them only on its own search path (LD_LIBRARY_PATH,
// ld.so.cache), not in the folders ember searches (the nvidia-cudnn wheel's lib,
// $EMBER_CUDA_LIBRARY_PATH). Opening them first from those folders makes cuDNN's
// own opens find them already loaded (the loader matches loaded libraries by name).
// Their dependencies on one another resolve through their $ORIGIN runpath.
void preload_sublibraries() {
  static const bool done = [] {
    for (const char* name : {"libcudnn_graph.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9", "libcudnn_heuristic.so.9",
                             "libcudnn_engines_precompiled.so.9", "libcudnn_engines_runtime_compiled.so.9"}) {
      auto* lib = new DynamicLibrary("cuDNN", {name});  // leaked: stays loaded for the process
      lib->available();  // a missing one is cuDNN's error to report, when it needs it
    }
    return true;
  }();
  (void)done;
}

}  // namespace

DynamicLibrary& cudnn_library() {
  static DynamicLibrary lib("cuDNN", {"libcudnn.so.9", "libcudnn.so"});
  preload_sublibraries();
  return lib;
}

void cudnn_check(cudnnStatus_t status, const char* what) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  const char* message = EMBER_CUDNN_FN(cudnnGetErrorString)(status);
  throw Error(::ember::detail::str("cuDNN error: ", message ? message : "unknown", " (status ",
                          static_cast<int>(status), ") in ", what));
}

namespace {

constexpr int kMaxDevices = 64;

// Handles not held by a thread, per device. Leaked on purpose: threads' holders
// return their handles here at thread exit, which may be after static destruction.
struct HandlePool {
  std::mutex mutex;
  std::vector<cudnnHandle_t> free[kMaxDevices];
};
HandlePool& pool() {
  static HandlePool* p = new HandlePool;
  return *p;
}

// The handles this thread holds, one per device, given back to the pool at thread exit.
struct ThreadHandles {
  cudnnHandle_t handles[kMaxDevices] = {};
  ~ThreadHandles() {
    HandlePool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    for (int d = 0; d < kMaxDevices; ++d)
      if (handles[d]) p.free[d].push_back(handles[d]);
  }
};

}  // namespace

cudnnHandle_t cudnn_handle(cudaStream_t stream) {
  thread_local ThreadHandles mine;
  const int device = current_device();
  EMBER_CHECK(device >= 0 && device < kMaxDevices, "cuDNN: CUDA device index ", device, " out of range");
  cudnnHandle_t& h = mine.handles[device];
  if (!h) {
    {
      HandlePool& p = pool();
      std::lock_guard<std::mutex> lock(p.mutex);
      if (!p.free[device].empty()) {
        h = p.free[device].back();
        p.free[device].pop_back();
      }
    }
    if (!h) EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnCreate)(&h));  // on the current device
  }
  EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnSetStream)(h, stream));
  return h;
}

cudnnDataType_t cudnn_data_type(DType dtype, const char* op) {
  switch (dtype) {
    case kFloat32: return CUDNN_DATA_FLOAT;
    case kFloat64: return CUDNN_DATA_DOUBLE;
    case kFloat16: return CUDNN_DATA_HALF;
    case kBFloat16: return CUDNN_DATA_BFLOAT16;
    default: break;
  }
  EMBER_CHECK_AS(NotImplementedError, false, op, ": not implemented on CUDA for dtype ", dtype_name(dtype));
  return CUDNN_DATA_FLOAT;
}

size_t cudnn_version_or_zero() {
  return cudnn_library().available() ? EMBER_CUDNN_FN(cudnnGetVersion)() : 0;
}

int to_cudnn_int(int64_t v, const char* what) {
  EMBER_CHECK(v >= 0 && v <= INT_MAX, "cuDNN: ", what, " of ", v, " does not fit cuDNN's 32-bit sizes");
  return static_cast<int>(v);
}

TensorDescriptor::TensorDescriptor() { EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnCreateTensorDescriptor)(&desc_)); }
TensorDescriptor::~TensorDescriptor() {
  if (desc_) EMBER_CUDNN_FN(cudnnDestroyTensorDescriptor)(desc_);
}
void TensorDescriptor::set(cudnnDataType_t type, int64_t n, int64_t c, int64_t h, int64_t w) {
  const int N = to_cudnn_int(n, "batch"), C = to_cudnn_int(c, "channels"), H = to_cudnn_int(h, "height"),
            W = to_cudnn_int(w, "width");
  to_cudnn_int(c * h * w, "tensor size");
  to_cudnn_int(n * c * h * w, "tensor size");
  EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnSetTensor4dDescriptorEx)(desc_, type, N, C, H, W, C * H * W, H * W, W, 1));
}

FilterDescriptor::FilterDescriptor() { EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnCreateFilterDescriptor)(&desc_)); }
FilterDescriptor::~FilterDescriptor() {
  if (desc_) EMBER_CUDNN_FN(cudnnDestroyFilterDescriptor)(desc_);
}
void FilterDescriptor::set(cudnnDataType_t type, int64_t k, int64_t c, int64_t h, int64_t w) {
  to_cudnn_int(k * c * h * w, "weight size");
  EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnSetFilter4dDescriptor)(desc_, type, CUDNN_TENSOR_NCHW, to_cudnn_int(k, "filters"),
                                                                to_cudnn_int(c, "channels"), to_cudnn_int(h, "kernel height"),
                                                                to_cudnn_int(w, "kernel width")));
}

ConvolutionDescriptor::ConvolutionDescriptor() {
  EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnCreateConvolutionDescriptor)(&desc_));
}
ConvolutionDescriptor::~ConvolutionDescriptor() {
  if (desc_) EMBER_CUDNN_FN(cudnnDestroyConvolutionDescriptor)(desc_);
}
void ConvolutionDescriptor::set(const int64_t pad[2], const int64_t stride[2], const int64_t dilation[2],
                                int64_t groups, cudnnDataType_t compute) {
  EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnSetConvolution2dDescriptor)(
      desc_, to_cudnn_int(pad[0], "padding"), to_cudnn_int(pad[1], "padding"), to_cudnn_int(stride[0], "stride"),
      to_cudnn_int(stride[1], "stride"), to_cudnn_int(dilation[0], "dilation"), to_cudnn_int(dilation[1], "dilation"),
      CUDNN_CROSS_CORRELATION, compute));
  EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnSetConvolutionGroupCount)(desc_, to_cudnn_int(groups, "groups")));
}
void ConvolutionDescriptor::set_math(cudnnMathType_t math) {
  EMBER_CUDNN_CHECK(EMBER_CUDNN_FN(cudnnSetConvolutionMathType)(desc_, math));
}

}  // namespace ember::cuda::dnn
