// What can be asked of cuDNN without its headers (cudnn_common.cpp): for tests and
// diagnostics, which do not see the CUDA toolkit's include folder.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ember::cuda::dnn {

// cudnnGetVersion() (9xxxx for 9.x.y; needs no GPU), or 0 when cuDNN cannot be loaded.
size_t cudnn_version_or_zero();

// An int argument of cuDNN from an int64 size; raises when it does not fit.
int to_cudnn_int(int64_t v, const char* what);

}  // namespace ember::cuda::dnn
