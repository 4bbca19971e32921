// pad's index rule per dim (output index -> source index, -1 for the
// constant), shared by the forward (pad.cpp) and backward (pad_backward.cpp)
// kernels.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>

namespace ember::cpu {

// Source index of output index o along a dim of `size` padded by (left, right).
inline int64_t source_index(int64_t o, int64_t size, int64_t left, int64_t right, const std::string& mode) {
  if (mode == "circular") {
    // PyTorch crops (negative pads) first, then wraps around what is left.
    const int64_t crop_left = std::max<int64_t>(-left, 0);
    const int64_t kept = size - crop_left - std::max<int64_t>(-right, 0);
    const int64_t j = o - std::max<int64_t>(left, 0);
    return ((j % kept) + kept) % kept + crop_left;
  }
  int64_t j = o - left;
  if (j >= 0 && j < size) return j;
  if (mode == "constant") return -1;
  if (mode == "replicate") return j < 0 ? 0 : size - 1;
  // reflect (about the edge elements, which are not repeated); pad < size.
  if (j < 0) return -j;
  return 2 * (size - 1) - j;
}

}  // namespace ember::cpu
