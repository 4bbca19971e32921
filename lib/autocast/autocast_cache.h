// The weight cast cache: inside an autocast region, the lower-precision copy of a
// parameter (a float32 leaf that requires grad) is made once and reused by every op
// that reads it, until the outermost region ends (torch's cached_cast).
#pragma once
#include <cstdint>

#include "ember/tensor.h"

namespace ember::autocast {

// The cached copy of `param` in `dtype`, made (as a dispatched, recorded cast) on the
// first request of this region. Per thread.
Tensor cached_cast(const Tensor& param, DType dtype);
void clear_cast_cache();
int64_t cast_cache_size();

}  // namespace ember::autocast
