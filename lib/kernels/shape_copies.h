// cat and flip are copies between restrided views (lib/cpu/shape.cpp) through the
// copy_ kernel of the output's device, so one body serves every device: the CUDA
// backend registers these too (lib/cuda/index/copies.cpp).
#pragma once
#include "dispatch/dispatcher.h"

namespace ember {

void cat_kernel(OpCall& c);
void flip_kernel(OpCall& c);

}  // namespace ember
