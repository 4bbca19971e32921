// The per-thread autocast state and AutocastGuard (include/ember/autocast.h).
#include "autocast/autocast_state.h"

#include "autocast/autocast_cache.h"
#include "dispatch/autocast_hook.h"
#include "ember/autocast.h"
#include "ember/error.h"

namespace ember::autocast {

namespace {
thread_local State t_state;

int index_of(DeviceType device) { return static_cast<int>(device); }

// The dispatcher tests one flag per call: on while any device type's autocast is.
void sync_dispatcher_flag() {
  bool any = false;
  for (bool on : t_state.enabled) any = any || on;
  set_autocast_active(any);
}
}  // namespace

const State& state() { return t_state; }

bool is_available(DeviceType device) {
  return device == DeviceType::CPU || device == DeviceType::CUDA;
}

bool is_enabled(DeviceType device) { return t_state.enabled[index_of(device)]; }

void set_enabled(DeviceType device, bool enabled) {
  t_state.enabled[index_of(device)] = enabled;
  sync_dispatcher_flag();
}

DType get_dtype(DeviceType device) { return t_state.dtype[index_of(device)]; }

void set_dtype(DeviceType device, DType dtype) {
  // As torch, any floating dtype is taken here; the regions (AutocastGuard, the
  // Python autocast) refuse all but float16 and bfloat16.
  EMBER_CHECK(is_floating(dtype), "set_autocast_dtype: expected a floating dtype, got ", dtype_name(dtype));
  t_state.dtype[index_of(device)] = dtype;
}

bool is_cache_enabled() { return t_state.cache_enabled; }
void set_cache_enabled(bool enabled) { t_state.cache_enabled = enabled; }

int64_t increment_nesting() { return ++t_state.nesting; }
int64_t decrement_nesting() {
  // As torch: never below zero, so an unmatched exit cannot corrupt later regions.
  if (t_state.nesting > 0) --t_state.nesting;
  return t_state.nesting;
}

void clear_cache() { clear_cast_cache(); }
int64_t cache_size() { return cast_cache_size(); }

}  // namespace ember::autocast

namespace ember {

AutocastGuard::AutocastGuard(DeviceType device, std::optional<DType> dtype, bool enabled,
                             std::optional<bool> cache_enabled)
    : device_(device),
      previous_enabled_(autocast::is_enabled(device)),
      previous_dtype_(autocast::get_dtype(device)),
      previous_cache_enabled_(autocast::is_cache_enabled()) {
  // Checked before anything changes: a refused guard leaves the state as it was.
  DType target = dtype.value_or(previous_dtype_);
  EMBER_CHECK(!enabled || target == kFloat16 || target == kBFloat16,
              "AutocastGuard: autocast runs ops in float16 or bfloat16, got ", dtype_name(target));
  autocast::set_enabled(device, enabled);
  autocast::set_dtype(device, target);
  autocast::increment_nesting();
  autocast::set_cache_enabled(cache_enabled.value_or(previous_cache_enabled_));
}

AutocastGuard::~AutocastGuard() {
  if (autocast::decrement_nesting() == 0) autocast::clear_cache();
  autocast::set_enabled(device_, previous_enabled_);
  autocast::set_dtype(device_, previous_dtype_);
  autocast::set_cache_enabled(previous_cache_enabled_);
}

}  // namespace ember
