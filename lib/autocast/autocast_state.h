// The per-thread autocast state behind include/ember/autocast.h: what the autocast
// layer and the op functions' dtype checks read.
#pragma once
#include <cstdint>

#include "ember/device.h"
#include "ember/dtype.h"

namespace ember::autocast {

struct State {
  bool enabled[kNumDeviceTypes] = {false, false};
  // torch's defaults: bfloat16 on the CPU, float16 on CUDA.
  DType dtype[kNumDeviceTypes] = {kBFloat16, kFloat16};
  bool cache_enabled = true;
  int64_t nesting = 0;
};

// This thread's state (read-only: change it through ember/autocast.h, which keeps the
// dispatcher's per-thread flag in step).
const State& state();

}  // namespace ember::autocast
