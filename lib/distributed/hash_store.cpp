// HashStore: a map behind a mutex; waiters sleep on a condition variable that
// every write signals.
#include <condition_variable>

#include "distributed/store_semantics.h"

namespace ember::distributed {

struct HashStore::State {
  std::mutex mutex;
  std::condition_variable changed;
  detail::KeyValueMap map;
};

HashStore::HashStore() : state_(std::make_unique<State>()) {}
HashStore::~HashStore() = default;

void HashStore::set(const std::string& key, const Bytes& value) {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->map[key] = value;
  }
  state_->changed.notify_all();
}

Bytes HashStore::get(const std::string& key) {
  wait({key});
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->map.at(key);
}

int64_t HashStore::add(const std::string& key, int64_t amount) {
  int64_t value;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    value = detail::add_to(state_->map, key, amount);
  }
  state_->changed.notify_all();
  return value;
}

Bytes HashStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  Bytes value;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    value = detail::compare_set_in(state_->map, key, expected, desired);
  }
  state_->changed.notify_all();
  return value;
}

bool HashStore::delete_key(const std::string& key) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->map.erase(key) > 0;
}

bool HashStore::check(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return detail::has_all(state_->map, keys);
}

int64_t HashStore::num_keys() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return static_cast<int64_t>(state_->map.size());
}

void HashStore::wait(const std::vector<std::string>& keys, Milliseconds timeout) {
  std::unique_lock<std::mutex> lock(state_->mutex);
  auto ready = [&] { return detail::has_all(state_->map, keys); };
  if (timeout <= Milliseconds::zero()) {
    state_->changed.wait(lock, ready);
    return;
  }
  if (!state_->changed.wait_for(lock, timeout, ready))
    throw DistStoreError(detail::timeout_message("HashStore", timeout, keys));
}

void HashStore::append(const std::string& key, const Bytes& value) {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    Bytes& stored = state_->map[key];
    stored.insert(stored.end(), value.begin(), value.end());
  }
  state_->changed.notify_all();
}

}  // namespace ember::distributed
