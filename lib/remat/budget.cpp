// The memory budget's switches and counters (ember/memory_budget.h), and the
// installation of the rematerialization runtime's hooks (remat.h).
#include "ember/memory_budget.h"

#include "core/allocation_hook.h"
#include "dispatch/remat_hook.h"
#include "ember/error.h"
#include "remat/remat_state.h"

namespace ember {
namespace remat {

std::atomic<bool> g_budget_set{false};

namespace {

std::vector<std::pair<Device, DeviceState>>& device_states() {
  static std::vector<std::pair<Device, DeviceState>> states;
  return states;
}

bool any_budget() {
  for (auto& [device, state] : device_states())
    if (state.budget) return true;
  return false;
}

void before_allocation(Device device, size_t nbytes) { make_room(device, nbytes); }

}  // namespace

std::recursive_mutex& state_mutex() {
  static std::recursive_mutex mutex;
  return mutex;
}

std::unordered_map<Storage*, std::unique_ptr<Record>>& records() {
  // Never destroyed: records may still be dropped by tensors freed during exit.
  static auto* map = new std::unordered_map<Storage*, std::unique_ptr<Record>>();
  return *map;
}

int& evicted_count() {
  static int count = 0;
  return count;
}

DeviceState& device_state(Device device) {
  device = normalized(device);
  for (auto& [d, state] : device_states())
    if (d == device) return state;
  return device_states().emplace_back(device, DeviceState{}).second;
}

void update_active() {
  const bool budget = any_budget();
  g_budget_set.store(budget, std::memory_order_relaxed);
  set_remat_active(budget || evicted_count() > 0);
}

}  // namespace remat

namespace memory {

void set_budget(std::optional<int64_t> bytes, Device device) {
  if (bytes)
    EMBER_CHECK_AS(ValueError, *bytes > 0, "set_budget: the budget must be a positive number of "
                   "bytes (or None to clear it), got ", *bytes);
  EMBER_CHECK(device.is_cpu() || device.is_cuda(), "set_budget: no memory budget for device ",
              device.str());
  std::lock_guard<std::recursive_mutex> lock(remat::state_mutex());
  static const bool installed = [] {
    set_remat_layer(&remat::run_call);
    g_before_allocation.store(&remat::before_allocation, std::memory_order_relaxed);
    return true;
  }();
  (void)installed;
  remat::device_state(device).budget = bytes;
  remat::update_active();
}

std::optional<int64_t> get_budget(Device device) {
  std::lock_guard<std::recursive_mutex> lock(remat::state_mutex());
  return remat::device_state(device).budget;
}

BudgetGuard::BudgetGuard(std::optional<int64_t> bytes, Device device)
    : device_(device), previous_(get_budget(device)) {
  set_budget(bytes, device);
}

BudgetGuard::~BudgetGuard() {
  try {
    set_budget(previous_, device_);
  } catch (...) {
  }
}

RematStats remat_stats(Device device) {
  device = remat::normalized(device);
  std::lock_guard<std::recursive_mutex> lock(remat::state_mutex());
  RematStats s = remat::device_state(device).stats;
  for (auto& [storage, rec] : remat::records()) {
    if (!(rec->device == device) || !rec->recipe) continue;
    ++s.tracked_tensors;
    s.evicted_now += rec->evicted ? 1 : 0;
  }
  return s;
}

void reset_remat_stats(Device device) {
  std::lock_guard<std::recursive_mutex> lock(remat::state_mutex());
  remat::device_state(device).stats = RematStats{};
}

}  // namespace memory
}  // namespace ember
