// PrefixStore: every key of the underlying store under "prefix/".
#include "ember/distributed/store.h"

namespace ember::distributed {

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : Store(store ? store->timeout() : kDefaultStoreTimeout), prefix_(std::move(prefix)),
      store_(std::move(store)) {
  EMBER_CHECK_VALUE(store_ != nullptr, "PrefixStore: the underlying store is None");
}

std::vector<std::string> PrefixStore::keys_of(const std::vector<std::string>& keys) const {
  std::vector<std::string> out;
  out.reserve(keys.size());
  for (const auto& key : keys) out.push_back(key_of(key));
  return out;
}

void PrefixStore::set(const std::string& key, const Bytes& value) { store_->set(key_of(key), value); }
Bytes PrefixStore::get(const std::string& key) {
  store_->wait({key_of(key)}, timeout());
  return store_->get(key_of(key));
}
int64_t PrefixStore::add(const std::string& key, int64_t amount) {
  return store_->add(key_of(key), amount);
}
Bytes PrefixStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  return store_->compare_set(key_of(key), expected, desired);
}
bool PrefixStore::delete_key(const std::string& key) { return store_->delete_key(key_of(key)); }
bool PrefixStore::check(const std::vector<std::string>& keys) { return store_->check(keys_of(keys)); }
int64_t PrefixStore::num_keys() { return store_->num_keys(); }
void PrefixStore::wait(const std::vector<std::string>& keys, Milliseconds timeout) {
  store_->wait(keys_of(keys), timeout);
}
void PrefixStore::append(const std::string& key, const Bytes& value) {
  store_->append(key_of(key), value);
}

}  // namespace ember::distributed
