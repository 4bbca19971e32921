#include "core/cuda_launch_blocking.h"

#include <cstdlib>
#include <cstring>

namespace ember::cuda {

namespace {
bool from_environment() {
  const char* v = std::getenv("CUDA_LAUNCH_BLOCKING");
  return v && std::strcmp(v, "") != 0 && std::strcmp(v, "0") != 0;
}
}  // namespace

namespace detail {
std::atomic<bool> launch_blocking_flag{from_environment()};
}  // namespace detail

void set_launch_blocking(bool on) { detail::launch_blocking_flag.store(on, std::memory_order_relaxed); }

}  // namespace ember::cuda
