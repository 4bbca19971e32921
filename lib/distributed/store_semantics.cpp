#include "distributed/store_semantics.h"

#include <cerrno>
#include <cstdlib>

namespace ember::distributed::detail {

int64_t add_to(KeyValueMap& map, const std::string& key, int64_t amount) {
  int64_t value = 0;
  auto it = map.find(key);
  if (it != map.end()) {
    std::string text = to_string(it->second);
    char* end = nullptr;
    errno = 0;
    long long parsed = text.empty() ? 0 : std::strtoll(text.c_str(), &end, 10);
    EMBER_CHECK_VALUE(!text.empty() && errno == 0 && end == text.c_str() + text.size(),
                      "add: the value of key '", key, "' is not an integer (",
                      text.size(), " bytes)");
    value = parsed;
  }
  value += amount;
  map[key] = to_bytes(std::to_string(value));
  return value;
}

Bytes compare_set_in(KeyValueMap& map, const std::string& key, const Bytes& expected,
                     const Bytes& desired) {
  auto it = map.find(key);
  if (it == map.end()) {
    if (!expected.empty()) return expected;
    map[key] = desired;
    return desired;
  }
  if (it->second == expected) it->second = desired;
  return it->second;
}

bool has_all(const KeyValueMap& map, const std::vector<std::string>& keys) {
  for (const auto& key : keys)
    if (map.find(key) == map.end()) return false;
  return true;
}

std::string timeout_message(const char* store, Milliseconds timeout,
                            const std::vector<std::string>& keys) {
  std::string message = std::string(store) + ": wait timeout after " +
                        std::to_string(timeout.count()) + "ms, keys: ";
  for (size_t i = 0; i < keys.size(); ++i) message += (i ? ", " : "") + keys[i];
  return message;
}

}  // namespace ember::distributed::detail
