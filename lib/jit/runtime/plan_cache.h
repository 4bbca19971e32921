// The memory plans of one graph, by the signature of the inputs they were made for
// (sizes, strides, dtypes, devices, grad mode): a small cache, least recently used
// first out, shared by every thread that runs the graph.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "ember/tensor.h"
#include "jit/runtime/memory_plan.h"

namespace ember::jit::runtime {

using InputSignature = std::vector<int64_t>;
InputSignature input_signature(const std::vector<Tensor>& inputs);

class PlanCache {
 public:
  static constexpr size_t kCapacity = 8;

  std::shared_ptr<const MemoryPlan> find(const InputSignature& key);
  void insert(InputSignature key, std::shared_ptr<const MemoryPlan> plan);
  size_t size() const;

 private:
  struct Entry {
    InputSignature key;
    std::shared_ptr<const MemoryPlan> plan;
    uint64_t used;
  };
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
  uint64_t clock_ = 0;
};

}  // namespace ember::jit::runtime
