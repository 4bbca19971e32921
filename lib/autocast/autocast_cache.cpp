#include "autocast/autocast_cache.h"

#include <unordered_map>

#include "ember/autograd.h"

namespace ember::autocast {

namespace {

// Grad mode is part of the key: a copy made under no_grad has no history, so an op
// run later with grad on must not reuse it (it would cut the parameter's gradient).
struct Key {
  const TensorImpl* param;
  DType dtype;
  bool grad_enabled;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    return std::hash<const void*>()(k.param) ^ (static_cast<size_t>(k.dtype) << 1) ^
           static_cast<size_t>(k.grad_enabled);
  }
};
struct Entry {
  Tensor param;  // held, so its address cannot be reused by another tensor while cached
  Tensor copy;
};

std::unordered_map<Key, Entry, KeyHash>& cache() {
  thread_local std::unordered_map<Key, Entry, KeyHash> c;
  return c;
}

}  // namespace

Tensor cached_cast(const Tensor& param, DType dtype) {
  Key key{param.impl(), dtype, is_grad_enabled()};
  auto& c = cache();
  auto it = c.find(key);
  if (it != c.end()) return it->second.copy;
  Tensor copy = param.to(dtype);
  c.emplace(key, Entry{param, copy});
  return copy;
}

void clear_cast_cache() { cache().clear(); }
int64_t cast_cache_size() { return static_cast<int64_t>(cache().size()); }

}  // namespace ember::autocast
