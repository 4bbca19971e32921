// Output sizes of pooling windows, shared by the op functions (checks) and the
// kernels (PyTorch's pooling_output_shape).
#pragma once
#include <cstdint>

#include "kernels/pool_window.h"  // adaptive_start, adaptive_end

namespace ember {

// Windows of `kernel` (dilated) every `stride` over size + 2 * pad; with
// ceil_mode a last partial window counts if it starts inside the input or left padding.
inline int64_t pooling_output_size(int64_t size, int64_t kernel, int64_t pad, int64_t stride,
                                   int64_t dilation, bool ceil_mode) {
  int64_t span = size + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  // floor division (span may be negative)
  int64_t out = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= size + pad) --out;
  return out;
}

}  // namespace ember
