// Choosing and running cuDNN's convolution algorithms (conv_algorithm.cpp), shared by
// the four convolution kernels of conv.cpp.
#pragma once
#include <cudnn.h>

#include <cstdint>

#include "cuda/dnn/cudnn_common.h"
#include "ember/tensor.h"

namespace ember::cuda::dnn {

// One 2-d convolution in conv2d's terms: the image side x [n, c, h, w], the filters
// [k, c / groups, r, s], the output side y [n, k, oh, ow].
struct ConvProblem {
  int64_t n, c, h, w;
  int64_t k, r, s;
  int64_t oh, ow;
  int64_t stride[2], pad[2], dilation[2];
  int64_t groups;
  DType dtype;
  int64_t x_image() const { return c * h * w; }  // elements per image
  int64_t y_image() const { return k * oh * ow; }
};

// What cuDNN computes: y = conv(x, w); dx = conv^T(dy, w); dw = conv^T(x, dy).
enum class ConvPass { Forward = 0, BackwardData = 1, BackwardFilter = 2 };

// Runs one pass over the batch of `p` on the current stream of the current device:
// x, w, y are device pointers to contiguous NCHW / KCRS data of p.dtype; the pass
// writes y (Forward), x (BackwardData) or w (BackwardFilter), overwriting it.
// Batches whose tensors exceed cuDNN's 32-bit sizes run in chunks of images (the
// filter gradient of later chunks accumulated).
void run_convolution(ConvPass pass, const ConvProblem& p, void* x, void* w, void* y, cudaStream_t stream);

}  // namespace ember::cuda::dnn
