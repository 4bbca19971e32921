// Store's shared pieces: the byte conversions, the timeout, and the operations
// built from the others (append, multi_get, multi_set).
#include "ember/distributed/store.h"

namespace ember::distributed {

Bytes to_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }
std::string to_string(const Bytes& b) { return std::string(b.begin(), b.end()); }

Milliseconds Store::timeout() const {
  std::lock_guard<std::mutex> lock(timeout_mutex_);
  return timeout_;
}

void Store::set_timeout(Milliseconds timeout) {
  std::lock_guard<std::mutex> lock(timeout_mutex_);
  timeout_ = timeout;
}

// A compare-and-swap loop: correct for any store, whatever other clients do meanwhile.
void Store::append(const std::string& key, const Bytes& value) {
  for (;;) {
    Bytes current = check({key}) ? get(key) : Bytes{};
    Bytes desired = current;
    desired.insert(desired.end(), value.begin(), value.end());
    if (compare_set(key, current, desired) == desired) return;
  }
}

std::vector<Bytes> Store::multi_get(const std::vector<std::string>& keys) {
  std::vector<Bytes> values;
  values.reserve(keys.size());
  for (const auto& key : keys) values.push_back(get(key));
  return values;
}

void Store::multi_set(const std::vector<std::string>& keys, const std::vector<Bytes>& values) {
  EMBER_CHECK_VALUE(keys.size() == values.size(), "multi_set: ", keys.size(), " keys but ",
                    values.size(), " values");
  for (size_t i = 0; i < keys.size(); ++i) set(keys[i], values[i]);
}

}  // namespace ember::distributed
