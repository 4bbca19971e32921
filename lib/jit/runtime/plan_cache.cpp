// The per-graph cache of memory plans (lib/jit/runtime/plan_cache.h).
#include "jit/runtime/plan_cache.h"

#include <algorithm>

#include "ember/autograd.h"

namespace ember::jit::runtime {

InputSignature input_signature(const std::vector<Tensor>& inputs) {
  InputSignature key;
  key.reserve(2 + inputs.size() * 8);
  // Autograd keeps what it saves alive past the run, so the same shapes allocate
  // differently with gradients on and off.
  key.push_back(is_grad_enabled() ? 1 : 0);
  for (const Tensor& t : inputs) {
    if (!t.defined()) {
      key.push_back(-1);
      continue;
    }
    key.push_back(static_cast<int64_t>(t.dtype()));
    key.push_back(static_cast<int64_t>(t.device().type) * 1024 + t.device().index);
    key.push_back(t.dim());
    for (int64_t s : t.sizes()) key.push_back(s);
    for (int64_t s : t.strides()) key.push_back(s);
  }
  return key;
}

std::shared_ptr<const MemoryPlan> PlanCache::find(const InputSignature& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (Entry& e : entries_)
    if (e.key == key) {
      e.used = ++clock_;
      return e.plan;
    }
  return nullptr;
}

void PlanCache::insert(InputSignature key, std::shared_ptr<const MemoryPlan> plan) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (Entry& e : entries_)
    if (e.key == key) {  // another thread recorded the same shapes meanwhile
      e.plan = std::move(plan);
      e.used = ++clock_;
      return;
    }
  if (entries_.size() < kCapacity) {
    entries_.push_back({std::move(key), std::move(plan), ++clock_});
    return;
  }
  auto oldest = std::min_element(entries_.begin(), entries_.end(),
                                 [](const Entry& a, const Entry& b) { return a.used < b.used; });
  *oldest = {std::move(key), std::move(plan), ++clock_};
}

size_t PlanCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace ember::jit::runtime
