// Autocast (torch.autocast, at::autocast): inside an enabled region, chosen ops run in
// a lower precision (matmul, linear, conv: float16/bfloat16), others in float32
// (exp, log, softmax, losses, norms), others at the widest floating dtype of their
// inputs (cat, atan2, ...). The policy of each op is a field of its row in the op
// schema (`autocast` for CUDA, `autocast_cpu` for the CPU: lib/dispatch/schema/README.md);
// docs/amp.md lists them. The state is per thread and per device type.
//
// Not included by ember/ember.h: include it yourself,
//     #include <ember/autocast.h>
//
//     {
//       ember::AutocastGuard guard(ember::DeviceType::CPU);  // bfloat16 on the CPU
//       ember::Tensor y = ember::linear(x, w, b);             // y is bfloat16
//     }
#pragma once
#include <cstdint>
#include <optional>

#include "ember/device.h"
#include "ember/dtype.h"

namespace ember {
namespace autocast {

// The device types autocast knows: the CPU and CUDA (torch.amp.is_autocast_available).
bool is_available(DeviceType device);
// Whether autocast is on for `device` on this thread.
bool is_enabled(DeviceType device);
void set_enabled(DeviceType device, bool enabled);
// The lower-precision dtype of `device`'s regions: bfloat16 on the CPU and float16 on
// CUDA unless set. Any floating dtype is taken (as torch); AutocastGuard takes only
// float16 and bfloat16 (ember::Error otherwise).
DType get_dtype(DeviceType device);
void set_dtype(DeviceType device, DType dtype);
// Whether the lower-precision copies of parameters (leaf tensors that require grad)
// are cached while a region lives (one copy per parameter, not one per use).
bool is_cache_enabled();
void set_cache_enabled(bool enabled);
// The depth of nested regions on this thread (torch.autocast_increment_nesting):
// leaving the outermost one drops the cache.
int64_t increment_nesting();
int64_t decrement_nesting();
// Drops the cached parameter copies of this thread (torch.clear_autocast_cache).
void clear_cache();
// How many copies the cache holds (tests and the docs read it).
int64_t cache_size();

}  // namespace autocast

// RAII: an autocast region for `device` (torch.autocast(device_type, dtype, enabled,
// cache_enabled)), restoring the previous state when it ends and dropping the cache
// when the outermost region ends. dtype: the device's current one when not given.
class AutocastGuard {
 public:
  explicit AutocastGuard(DeviceType device, std::optional<DType> dtype = std::nullopt,
                         bool enabled = true, std::optional<bool> cache_enabled = std::nullopt);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  DeviceType device_;
  bool previous_enabled_;
  DType previous_dtype_;
  bool previous_cache_enabled_;
};

}  // namespace ember
