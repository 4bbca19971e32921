// The semantics every store shares, applied to an in-memory map: HashStore keeps
// its keys in one, FileStore replays its file into one, the TCPStore server serves
// one. Callers hold their own lock.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ember/distributed/store.h"

namespace ember::distributed::detail {

using KeyValueMap = std::map<std::string, Bytes>;

// The integer at key plus amount, written back as decimal text; ValueError when the
// value there is not an integer.
int64_t add_to(KeyValueMap& map, const std::string& key, int64_t amount);
// torch's compare_set: returns the value the key holds afterwards, or `expected`
// when the key is absent and expected is not empty.
Bytes compare_set_in(KeyValueMap& map, const std::string& key, const Bytes& expected,
                     const Bytes& desired);
bool has_all(const KeyValueMap& map, const std::vector<std::string>& keys);
// "wait timeout after 300ms, keys: a, b" (torch's words).
std::string timeout_message(const char* store, Milliseconds timeout,
                            const std::vector<std::string>& keys);

}  // namespace ember::distributed::detail
