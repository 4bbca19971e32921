// cuDNN for the convolutions: the library (opened at run time, never linked), one
// handle per (device, thread) bound to the current stream, error checks, the data
// types of ember's dtypes, and RAII descriptors.
//
// cuDNN v9 keeps the legacy API (cudnnConvolutionForward, ...) in libcudnn_cnn.so.9
// and libcudnn_ops.so.9, but libcudnn.so.9 exports every one of those functions and
// forwards to them, so only libcudnn.so.9 is opened.
#pragma once
#include <cudnn.h>

#include <cstdint>

#include "cuda/dnn/cudnn_probe.h"  // to_cudnn_int
#include "cuda/dynamic_library.h"
#include "ember/tensor.h"

namespace ember::cuda::dnn {

DynamicLibrary& cudnn_library();

// The cuDNN function `name`, looked up in libcudnn.so.9 on first use.
#define EMBER_CUDNN_FN(name) EMBER_DYNAMIC_FN(::ember::cuda::dnn::cudnn_library(), name)

// Raises an ember::Error naming the call and cuDNN's message when status is not success.
void cudnn_check(cudnnStatus_t status, const char* what);
#define EMBER_CUDNN_CHECK(call) ::ember::cuda::dnn::cudnn_check((call), #call)

// This thread's handle for the current device, its stream set to `stream`. Made on
// first use; handles of finished threads go back to a pool for the next thread.
cudnnHandle_t cudnn_handle(cudaStream_t stream);

// cuDNN's type of a floating dtype (float32, float64, float16, bfloat16); other
// dtypes raise NotImplementedError naming `op`.
cudnnDataType_t cudnn_data_type(DType dtype, const char* op);

// A contiguous NCHW tensor descriptor.
class TensorDescriptor {
 public:
  TensorDescriptor();
  ~TensorDescriptor();
  TensorDescriptor(const TensorDescriptor&) = delete;
  TensorDescriptor& operator=(const TensorDescriptor&) = delete;
  void set(cudnnDataType_t type, int64_t n, int64_t c, int64_t h, int64_t w);
  cudnnTensorDescriptor_t get() const { return desc_; }

 private:
  cudnnTensorDescriptor_t desc_ = nullptr;
};

// A KCRS (NCHW-ordered) filter descriptor.
class FilterDescriptor {
 public:
  FilterDescriptor();
  ~FilterDescriptor();
  FilterDescriptor(const FilterDescriptor&) = delete;
  FilterDescriptor& operator=(const FilterDescriptor&) = delete;
  void set(cudnnDataType_t type, int64_t k, int64_t c, int64_t h, int64_t w);
  cudnnFilterDescriptor_t get() const { return desc_; }

 private:
  cudnnFilterDescriptor_t desc_ = nullptr;
};

class ConvolutionDescriptor {
 public:
  ConvolutionDescriptor();
  ~ConvolutionDescriptor();
  ConvolutionDescriptor(const ConvolutionDescriptor&) = delete;
  ConvolutionDescriptor& operator=(const ConvolutionDescriptor&) = delete;
  // Cross-correlation (PyTorch's convolution), computing in `compute`.
  void set(const int64_t pad[2], const int64_t stride[2], const int64_t dilation[2], int64_t groups,
           cudnnDataType_t compute);
  void set_math(cudnnMathType_t math);
  cudnnConvolutionDescriptor_t get() const { return desc_; }

 private:
  cudnnConvolutionDescriptor_t desc_ = nullptr;
};

}  // namespace ember::cuda::dnn
