// The two cuDNN switches the convolutions read (PyTorch's
// torch.backends.cudnn.allow_tf32 and .benchmark).
//
// They are DEFINED in the `blas` branch (include/ember/cuda.h, with their setters);
// until that lands, cudnn_common.cpp carries weak defaults (tf32 allowed, no
// benchmarking, as PyTorch) so that the library links; the strong definitions replace
// them. Once include/ember/cuda.h declares them, this header can go.
#pragma once

namespace ember::cuda {

// float32 convolutions may use TF32 tensor cores (CUDNN_TENSOR_OP_MATH); when false
// they run in full float32 (CUDNN_FMA_MATH).
bool cudnn_allow_tf32();
// Algorithms are measured once per configuration (cudnnFind*AlgorithmEx) rather than
// chosen by cuDNN's heuristics (cudnnGet*Algorithm_v7).
bool cudnn_benchmark();

}  // namespace ember::cuda
