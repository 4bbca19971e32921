// pad's index rule per dim (output index -> source index, -1 for the
// constant), EMBER_HOST_DEVICE: shared by the CPU kernels (lib/cpu/pad.cpp,
// pad_backward.cpp) and the CUDA kernels (lib/cuda/nn/pad.cu).
#pragma once
#include <cstdint>
#include <string>

#include "ember/half.h"  // EMBER_HOST_DEVICE

namespace ember {

enum class PadMode : int { Constant, Reflect, Replicate, Circular };

// The mode named by pad's attr ("constant", "reflect", "replicate", "circular").
inline PadMode pad_mode(const std::string& mode) {
  if (mode == "constant") return PadMode::Constant;
  if (mode == "replicate") return PadMode::Replicate;
  if (mode == "circular") return PadMode::Circular;
  return PadMode::Reflect;
}

// Source index of output index o along a dim of `size` padded by (left, right).
EMBER_HOST_DEVICE inline int64_t pad_source(int64_t o, int64_t size, int64_t left, int64_t right, PadMode mode) {
  if (mode == PadMode::Circular) {
    // PyTorch crops (negative pads) first, then wraps around what is left.
    const int64_t crop_left = left < 0 ? -left : 0;
    const int64_t kept = size - crop_left - (right < 0 ? -right : 0);
    const int64_t j = o - (left > 0 ? left : 0);
    return ((j % kept) + kept) % kept + crop_left;
  }
  int64_t j = o - left;
  if (j >= 0 && j < size) return j;
  if (mode == PadMode::Constant) return -1;
  if (mode == PadMode::Replicate) return j < 0 ? 0 : size - 1;
  // reflect (about the edge elements, which are not repeated); pad < size.
  if (j < 0) return -j;
  return 2 * (size - 1) - j;
}

// The same, with the mode by name (host side).
inline int64_t pad_source(int64_t o, int64_t size, int64_t left, int64_t right, const std::string& mode) {
  return pad_source(o, size, left, right, pad_mode(mode));
}

}  // namespace ember
