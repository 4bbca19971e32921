// pad's index rule per dim for the CPU kernels (pad.cpp, pad_backward.cpp):
// the mode by name, the rule itself in core/pad_index.h (shared with CUDA).
#pragma once
#include <cstdint>
#include <string>

#include "core/pad_index.h"

namespace ember::cpu {

// The mode named by pad's attr ("constant", "reflect", "replicate", "circular").
inline PadMode pad_mode(const std::string& mode) {
  if (mode == "constant") return PadMode::Constant;
  if (mode == "replicate") return PadMode::Replicate;
  if (mode == "circular") return PadMode::Circular;
  return PadMode::Reflect;
}

// Source index of output index o along a dim of `size` padded by (left, right).
inline int64_t source_index(int64_t o, int64_t size, int64_t left, int64_t right, const std::string& mode) {
  return pad_source(o, size, left, right, pad_mode(mode));
}

}  // namespace ember::cpu
