// The runtime's switches (lib/jit/runtime/switches.h).
#include "jit/runtime/switches.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace ember::jit::runtime {

namespace {

bool on_unless_zero(const char* name) {
  const char* v = std::getenv(name);
  return !(v && std::strcmp(v, "0") == 0);
}

std::atomic<bool>& planning() {
  static std::atomic<bool> on{on_unless_zero("EMBER_JIT_MEMORY_PLAN")};
  return on;
}

std::atomic<bool>& fusion() {
  static std::atomic<bool> on{on_unless_zero("EMBER_JIT_FUSION")};
  return on;
}

}  // namespace

bool memory_planning_enabled() { return planning().load(std::memory_order_relaxed); }
void set_memory_planning(bool enabled) { planning().store(enabled, std::memory_order_relaxed); }
bool fusion_enabled() { return fusion().load(std::memory_order_relaxed); }
void set_fusion(bool enabled) { fusion().store(enabled, std::memory_order_relaxed); }

}  // namespace ember::jit::runtime
